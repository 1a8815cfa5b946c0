// Functions the rules and dashboards of the mixin share.
{
  local units = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 },

  // seconds('1h30m') = 5400: a Prometheus duration in seconds.
  seconds(d)::
    local step(acc, c) =
      if std.member('0123456789', c) then acc { n: acc.n * 10 + std.parseInt(c) }
      else if std.objectHas(units, c) && acc.n > 0 then { n: 0, total: acc.total + acc.n * units[c] }
      else error 'invalid duration %s: want e.g. 5m, 1h or 1d' % std.toString(d);
    local r = std.foldl(step, std.stringChars(d), { n: 0, total: 0 });
    if r.n != 0 || r.total == 0 then error 'invalid duration %s: want e.g. 5m, 1h or 1d' % std.toString(d)
    else r.total,

  // selector(['probe=~"a"', 'le="0.1"']) = '{probe=~"a", le="0.1"}'; '' for none.
  selector(matchers)::
    if std.length(matchers) == 0 then '' else '{' + std.join(', ', matchers) + '}',

  // le(0.1) = 'le="0.1"': the matcher of a classic histogram's bucket with
  // upper bound x. A whole number's bucket is matched in both spellings:
  // Prometheus 3 stores le="1" as le="1.0", Prometheus 2 as exposed.
  le(x)::
    local n = self.num(x);
    if std.isNumber(x) && x == std.floor(x) then 'le=~"%s|%s\\\\.0"' % [n, n] else 'le="%s"' % n,

  // humanDuration('5m') = '5 minutes', for texts.
  humanDuration(d)::
    assert self.seconds(d) > 0;
    local names = { s: 'second', m: 'minute', h: 'hour', d: 'day', w: 'week' };
    local n = std.parseInt(std.substr(d, 0, std.length(d) - 1));
    local u = d[std.length(d) - 1];
    if std.objectHas(names, u) && std.toString(n) + u == d then
      '%d %s%s' % [n, names[u], if n == 1 then '' else 's']
    else d,

  // num(0.1) = '0.1': a number as its shortest decimal (std.toString
  // writes 17 significant digits, 0.10000000000000001).
  num(x)::
    if std.isNumber(x) && x == std.floor(x) && std.abs(x) < 1e15 then std.toString(x)
    else
      // A short decimal by integer arithmetic (std.format is slow), else
      // the fewest %g digits that read back as x.
      local decimal(p) =
        if p > 9 then null
        else
          local n = std.floor(std.abs(x) * std.pow(10, p) + 0.5);
          if n / std.pow(10, p) == std.abs(x) then [n, p] else decimal(p + 1);
      local d = if std.abs(x) >= 1e-4 && std.abs(x) < 1e9 then decimal(1) else null;
      local try(p) =
        if p > 17 then std.toString(x)
        else
          local t = std.format('%.' + p + 'g', x);
          if std.parseJson(t) == x then t else try(p + 1);
      if d != null then
        local scale = std.pow(10, d[1]);
        local frac = std.toString(d[0] % scale);
        (if x < 0 then '-' else '') + std.toString(std.floor(d[0] / scale)) + '.'
        + std.repeat('0', d[1] - std.length(frac)) + frac
      else try(1),
}
