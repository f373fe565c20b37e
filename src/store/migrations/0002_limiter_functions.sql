-- Custom SQL migration: the SQL limiter's admissions as functions, so that one
-- admission is one statement and one network round trip (issue 5: the limiter
-- adds <= 1 ms per request). KEEP THIS FILE when regenerating 0000_init.
--
-- Each function first takes a transaction-scoped advisory lock on its bucket;
-- the statements after it run with fresh snapshots (a VOLATILE plpgsql
-- function takes one per statement under READ COMMITTED), so an admission of
-- the same bucket that held the lock before has committed and is counted. The
-- lock is released when the caller's (implicit) transaction commits, after the
-- inserted row is visible. Concurrent admissions can never admit more than the
-- limit (tests: test/limits-backends.test.ts on PostgreSQL).
CREATE FUNCTION cashline_hit_burst(p_key text, p_route text, p_now timestamptz, p_since timestamptz, p_limit integer)
RETURNS TABLE (n integer, oldest timestamptz, newest timestamptz, inserted bigint)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('burst:' || p_key || ':' || p_route));
  DELETE FROM burst_events e WHERE e.key_id = p_key AND e.route = p_route AND e.at <= p_since;
  SELECT count(*)::integer, min(e.at), max(e.at) INTO n, oldest, newest
    FROM burst_events e WHERE e.key_id = p_key AND e.route = p_route AND e.at > p_since;
  inserted := NULL;
  IF n < p_limit THEN
    INSERT INTO burst_events (key_id, route, at) VALUES (p_key, p_route, p_now) RETURNING id INTO inserted;
  END IF;
  RETURN NEXT;
END
$$;
--> statement-breakpoint
CREATE FUNCTION cashline_reserve_credit(p_org text, p_ba text, p_user text, p_now timestamptz, p_since timestamptz, p_limit integer)
RETURNS TABLE (n integer, oldest timestamptz, newest timestamptz, freeing timestamptz, inserted bigint)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('credit:' || p_ba || ':' || p_user));
  DELETE FROM credit_events e WHERE e.billing_account_id = p_ba AND e.user_id = p_user AND e.at <= p_since;
  SELECT count(*)::integer, min(e.at), max(e.at) INTO n, oldest, newest
    FROM credit_events e WHERE e.billing_account_id = p_ba AND e.user_id = p_user AND e.at > p_since;
  inserted := NULL;
  freeing := NULL;
  IF n < p_limit THEN
    INSERT INTO credit_events (org_id, billing_account_id, user_id, at) VALUES (p_org, p_ba, p_user, p_now) RETURNING id INTO inserted;
  ELSE
    -- The call whose ageing out frees the next credit: the (n - limit + 1)-th oldest.
    SELECT e.at INTO freeing FROM credit_events e
      WHERE e.billing_account_id = p_ba AND e.user_id = p_user AND e.at > p_since
      ORDER BY e.at ASC, e.id ASC OFFSET (n - p_limit) LIMIT 1;
  END IF;
  RETURN NEXT;
END
$$;
