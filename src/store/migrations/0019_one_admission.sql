-- Custom SQL migration: one request's admission in one statement (issue 21:
-- burst, credits, usage and the legacy daily bucket in one round trip).
-- KEEP THIS FILE when regenerating 0000_init.
--
-- cashline_admit counts the request against its key's burst bucket (by
-- calling cashline_hit_burst); only when the burst admits it and a billing
-- account is behind it (p_ba not null), it then reserves a credit (by calling
-- cashline_reserve_credit, p_credit = 'reserve') or reads the window
-- ('read'), and counts the call in the organisation's daily bucket
-- (p_daily = 'count', only when the credit was admitted or only read) or reads
-- it ('read'). Each bucket is taken under its own transaction-scoped advisory
-- lock (inside those functions), burst first, then credit (one order
-- everywhere: no deadlock); the statement's implicit transaction holds them
-- until every row is written.
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
  -- The burst bucket exactly as cashline_hit_burst admits (migration 0002).
  SELECT h.n, h.oldest, h.newest, h.inserted INTO b_n, b_oldest, b_newest, b_inserted
    FROM cashline_hit_burst(p_key, p_route, p_now, p_burst_since, p_burst_limit) h;
  c_inserted := NULL;
  c_freeing := NULL;
  c_admitted := NULL;
  d_used := NULL;
  IF b_inserted IS NULL OR p_ba IS NULL THEN
    RETURN NEXT;
    RETURN;
  END IF;

  IF p_credit = 'reserve' THEN
    -- The credit exactly as cashline_reserve_credit reserves it (migration 0002).
    SELECT r.n, r.oldest, r.newest, r.freeing, r.inserted INTO c_n, c_oldest, c_newest, c_freeing, c_inserted
      FROM cashline_reserve_credit(p_org, p_ba, p_user, p_now, p_credit_since, p_credit_limit) r;
    c_admitted := c_inserted IS NOT NULL;
  ELSE
    -- Only read: the window, and the call whose ageing out frees the next credit when it is over the limit.
    SELECT count(*)::integer, min(e.at), max(e.at) INTO c_n, c_oldest, c_newest
      FROM credit_events e WHERE e.billing_account_id = p_ba AND e.user_id = p_user AND e.at > p_credit_since;
    c_admitted := true;
    IF c_n > p_credit_limit THEN
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
