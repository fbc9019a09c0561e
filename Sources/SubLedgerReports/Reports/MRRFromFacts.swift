import SubLedgerCore

/// MRR per month from the maintained aggregates (schema step 19), the same figures `MRRSeries.compute` gives
/// from the ledger: `chain_mrr_moves` holds, per chain and month, how its MRR changed since the previous month's
/// end, so MRR at a month's end is the sum of every change up to that month, and a month's movement the sum of
/// its rows. A month measured before its end (the current month, measured at now) is measured from
/// `chain_mrr_steps`: the chains whose MRR changed since the previous month's end, each valued at both instants.
enum MRRFromFacts {
    /// One currency's running figures.
    private struct Level {
        var mrr: Int64 = 0
        var subscribers = 0
        var estimated = 0
        var committedMRR: Int64 = 0
        var committedSubscribers = 0

        mutating func apply(_ moves: ReportStore.MRRMoves) {
            mrr += moves.mrrDelta
            subscribers += moves.subscribersDelta
            estimated += moves.estimatedDelta
            committedMRR += moves.committedMRRDelta
            committedSubscribers += moves.committedSubscribersDelta
        }
    }

    /// For each month of `monthStarts` (CalendarDay, ascending, consecutive), each currency's point, measured at
    /// `measured` (each month's last millisecond, or `now` when that is earlier).
    static func series(
        store: ReportStore, monthStarts: [Int64], measured: [Instant], now: Instant
    ) throws -> [[String: MRRSeries.Point]] {
        guard let first = monthStarts.first else { return [] }
        // Months measured at their end come first; the rest are measured at `now`.
        let closed = zip(monthStarts, measured).prefix {
            CalendarDay.start(of: ReportCalendar.nextMonthStart($0.0)).adding(milliseconds: -1) == $0.1
        }.count
        let boundary =
            closed < monthStarts.count
            ? monthStarts[closed] : ReportCalendar.nextMonthStart(monthStarts[monthStarts.count - 1])
        var byMonth: [Int64: [ReportStore.MRRMoves]] = [:]
        for moves in try store.mrrMonthMoves(beforeDay: boundary) { byMonth[moves.monthDay, default: []].append(moves) }

        var levels: [String: Level] = [:]
        // Everything before the first month: the baseline.
        for month in byMonth.keys.sorted() where month < first {
            for moves in byMonth[month] ?? [] { levels[moves.currency, default: Level()].apply(moves) }
        }
        var result: [[String: MRRSeries.Point]] = []
        for month in monthStarts.prefix(closed) {
            let moves = byMonth[month] ?? []
            let previous = levels
            for move in moves { levels[move.currency, default: Level()].apply(move) }
            result.append(points(previous: previous, current: levels, moves: moves))
        }
        guard closed < monthStarts.count else { return result }
        // The first month measured at now: from the previous month's end (the levels so far) to now.
        let previousEnd = CalendarDay.start(of: monthStarts[closed]).adding(milliseconds: -1)
        let moves = try store.mrrMoves(
            fromMilliseconds: previousEnd.millisecondsSince1970, toMilliseconds: now.millisecondsSince1970)
        let previous = levels
        for move in moves { levels[move.currency, default: Level()].apply(move) }
        if previousEnd <= now {
            result.append(points(previous: previous, current: levels, moves: moves))
        } else {
            // The range starts after now: every month is measured at now, and nothing moves.
            result.append(points(previous: levels, current: levels, moves: []))
        }
        // Later months, measured at now too: nothing moves.
        for _ in (closed + 1)..<monthStarts.count {
            result.append(points(previous: levels, current: levels, moves: []))
        }
        return result
    }

    /// The points of one month: a currency is reported when some chain paid in it at either end.
    private static func points(
        previous: [String: Level], current: [String: Level], moves: [ReportStore.MRRMoves]
    ) -> [String: MRRSeries.Point] {
        var result: [String: MRRSeries.Point] = [:]
        for (currency, level) in current where level.subscribers > 0 || (previous[currency]?.subscribers ?? 0) > 0 {
            var point = MRRSeries.Point(currency: currency)
            point.mrr = level.mrr
            point.subscribers = level.subscribers
            point.estimated = level.estimated > 0
            point.committedMRR = level.committedMRR
            point.committedSubscribers = level.committedSubscribers
            point.movement = moves.filter { $0.currency == currency }.reduce(MRRMovement()) { $0 + $1.movement }
            result[currency] = point
        }
        return result
    }
}
