-- Custom SQL migration: one request's admission in one statement (issue 21:
-- burst, credits, usage and the legacy daily bucket in one round trip).
-- KEEP THIS FILE when regenerating 0000_init.
--
-- cashline_admit counts the request against its key's burst bucket exactly as
-- cashline_hit_burst does; only when the burst admits it and a billing account
-- is behind it (p_ba not null), it then reserves a credit exactly as
-- cashline_reserve_credit does (p_credit = 'reserve') or reads the window
-- ('read'), and counts the call in the organisation's daily bucket
-- (p_daily = 'count', only when the credit was admitted or only read) or reads
-- it ('read'). Each bucket is taken under its own transaction-scoped advisory
-- lock, burst first, then credit (one order everywhere: no deadlock); the
-- statement's implicit transaction holds them until every row is written.
-- Concurrent admissions can never admit more than a limit
-- (test/limits-backends.test.ts on PostgreSQL).
CREATE FUNCTION cashline_admit(
  p_key text, p_route text, p_now timestamptz, p_burst_since timestamptz, p_burst_limit integer,
  p_org text, p_ba text, p_user text, p_credit text, p_credit_since timestamptz, p_credit_limit integer,
  p_daily text, p_day date
)
RETURNS TABLE (
  b_n integer, b_oldest timestamptz, b_newest timestamptz, b_inserted bigint,
  c_n integer, c_oldest timestamptz, c_newest timestamptz, c_freeing timestamptz, c_inserted bigint, c_admitted boolean,
  d_used bigint
)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('burst:' || p_key || ':' || p_route));
  DELETE FROM burst_events e WHERE e.key_id = p_key AND e.route = p_route AND e.at <= p_burst_since;
  SELECT count(*)::integer, min(e.at), max(e.at) INTO b_n, b_oldest, b_newest
    FROM burst_events e WHERE e.key_id = p_key AND e.route = p_route AND e.at > p_burst_since;
  b_inserted := NULL;
  IF b_n < p_burst_limit THEN
    INSERT INTO burst_events (key_id, route, at) VALUES (p_key, p_route, p_now) RETURNING id INTO b_inserted;
  END IF;
  c_inserted := NULL;
  c_freeing := NULL;
  c_admitted := NULL;
  d_used := NULL;
  IF b_inserted IS NULL OR p_ba IS NULL THEN
    RETURN NEXT;
    RETURN;
  END IF;

  IF p_credit = 'reserve' THEN
    PERFORM pg_advisory_xact_lock(hashtext('credit:' || p_ba || ':' || p_user));
    DELETE FROM credit_events e WHERE e.billing_account_id = p_ba AND e.user_id = p_user AND e.at <= p_credit_since;
  END IF;
  SELECT count(*)::integer, min(e.at), max(e.at) INTO c_n, c_oldest, c_newest
    FROM credit_events e WHERE e.billing_account_id = p_ba AND e.user_id = p_user AND e.at > p_credit_since;
  IF p_credit = 'reserve' AND c_n < p_credit_limit THEN
    INSERT INTO credit_events (org_id, billing_account_id, user_id, at) VALUES (p_org, p_ba, p_user, p_now) RETURNING id INTO c_inserted;
    c_admitted := true;
  ELSE
    c_admitted := p_credit <> 'reserve';
    IF c_n > p_credit_limit OR (p_credit = 'reserve' AND c_n >= p_credit_limit) THEN
      -- The call whose ageing out frees the next credit: the (n - limit + 1)-th oldest.
      SELECT e.at INTO c_freeing FROM credit_events e
        WHERE e.billing_account_id = p_ba AND e.user_id = p_user AND e.at > p_credit_since
        ORDER BY e.at ASC, e.id ASC OFFSET (c_n - p_credit_limit) LIMIT 1;
    END IF;
  END IF;

  IF c_admitted AND p_daily = 'count' THEN
    INSERT INTO org_daily_calls (org_id, day, n) VALUES (p_org, p_day, 1)
      ON CONFLICT (org_id, day) DO UPDATE SET n = org_daily_calls.n + 1
      RETURNING n INTO d_used;
  ELSIF c_admitted THEN
    SELECT coalesce((SELECT d.n FROM org_daily_calls d WHERE d.org_id = p_org AND d.day = p_day), 0) INTO d_used;
  END IF;
  RETURN NEXT;
END
$$;
