import SubLedgerStore

/// The replica lag, measured: which standbys are current enough to answer a read, decided from readings of
/// the primary's WAL position and of each standby's replay position. A value with no I/O and no clock: the
/// monitor hands it readings and times, the read path asks it with the time of the read.
///
/// The lag of a standby is the age of the newest primary reading it has replayed: a reading of position P,
/// whose query was sent at time t, means every commit before t is at or before P; a standby that has
/// replayed P therefore shows every commit made before t, and is at most `now - t` behind. An idle primary
/// keeps P still and a caught-up standby keeps covering the newest reading, so its lag stays one monitor
/// interval (`pg_last_xact_replay_timestamp()` would report it growing). A paused or unreachable standby
/// covers no new reading, so its lag grows with the clock even if no one measures it any more: it can never
/// serve reads staler than the bound.
struct ReplicaLagTracker: Sendable {
    typealias Moment = ContinuousClock.Instant

    struct Reading: Sendable {
        var sentAt: Moment
        var position: WALPosition
    }

    struct Standby: Sendable {
        /// From its last answer; `false` until it has answered as a standby.
        var inRecovery = false
        var replayed: WALPosition?
        /// When the newest primary reading it has replayed was taken; `nil`: none yet.
        var currentAsOf: Moment?
    }

    /// Primary readings, oldest first (kept from the oldest one some standby still needs).
    private(set) var readings: [Reading] = []
    private(set) var standbys: [Standby]
    private var nextStandby = 0
    /// A bound on the readings kept while some standby has covered none of them (about 7 minutes at 100 ms, then
    /// thinned: see `recordPrimary`).
    static let readingLimit = 4096

    init(standbyCount: Int) {
        standbys = Array(repeating: Standby(), count: standbyCount)
    }

    mutating func recordPrimary(_ position: WALPosition, sentAt: Moment) {
        readings.append(Reading(sentAt: sentAt, position: position))
        if readings.count > Self.readingLimit { thin() }
    }

    /// Halves the readings kept, keeping the oldest, the newest and every other one between. A standby further
    /// behind than `readingLimit` readings still covers an old one once it replays its position, so its lag stays
    /// known (coarser: between two kept readings it is credited with the older one, never with a newer one, so it
    /// is overstated, never understated). Dropping the oldest instead would leave such a standby's lag unknown
    /// until it caught up to within the limit, however close it came.
    private mutating func thin() {
        let last = readings.count - 1
        readings = readings.indices.compactMap { index in
            index.isMultiple(of: 2) || index == last ? readings[index] : nil
        }
    }

    mutating func recordStandby(_ index: Int, _ reading: ReplicationPositions.Standby) {
        guard reading.inRecovery, let replayed = reading.replayed else {
            standbys[index] = Standby()
            return
        }
        standbys[index].inRecovery = true
        standbys[index].replayed = replayed
        if let covered = readings.last(where: { replayed.covers($0.position) }) {
            standbys[index].currentAsOf = max(standbys[index].currentAsOf ?? covered.sentAt, covered.sentAt)
        }
        prune()
    }

    /// Drops the readings older than every standby's newest covered one, keeping that one.
    private mutating func prune() {
        let needed = standbys.map { standby -> Moment? in standby.inRecovery ? standby.currentAsOf : nil }
        guard !needed.contains(where: { $0 == nil }), let oldest = needed.compactMap({ $0 }).min() else { return }
        if let first = readings.firstIndex(where: { $0.sentAt >= oldest }), first > 0 {
            readings.removeFirst(first)
        }
    }

    /// How far behind standby `index` is at `now`; `nil` when unknown (never measured, or not a standby).
    func lag(of index: Int, now: Moment) -> Duration? {
        let standby = standbys[index]
        guard standby.inRecovery, let currentAsOf = standby.currentAsOf else { return nil }
        return max(.zero, now - currentAsOf)
    }

    /// Whether standby `index` may answer a read at `now`, one that must see `token` if given.
    func accepts(_ index: Int, now: Moment, maximumLag: Duration, token: WALPosition?) -> Bool {
        guard let lag = lag(of: index, now: now), lag <= maximumLag else { return false }
        guard let token else { return true }
        return standbys[index].replayed.map { $0.covers(token) } ?? false
    }

    /// The standbys within the bound at `now` (whatever a token needs).
    func current(now: Moment, maximumLag: Duration) -> [Int] {
        standbys.indices.filter { accepts($0, now: now, maximumLag: maximumLag, token: nil) }
    }

    /// A standby that may answer (taking turns among those that may), or `nil`: the primary answers.
    mutating func choose(now: Moment, maximumLag: Duration, token: WALPosition?) -> Int? {
        let count = standbys.count
        for offset in 0..<count {
            let index = (nextStandby + offset) % count
            if accepts(index, now: now, maximumLag: maximumLag, token: token) {
                nextStandby = (index + 1) % count
                return index
            }
        }
        return nil
    }
}
