import SubLedgerStore
import Testing

@testable import SubLedgerUseCases

/// The lag measure's rules, on readings made up here (no database, no clock).
@Suite struct ReplicaLagTrackerTests {
    static let origin = ContinuousClock.now
    static func at(_ milliseconds: Int) -> ContinuousClock.Instant { origin + .milliseconds(milliseconds) }
    static func standby(_ replayed: UInt64) -> ReplicationPositions.Standby {
        .init(inRecovery: true, replayed: WALPosition(replayed))
    }

    @Test func anIdlePrimaryKeepsACaughtUpStandbyCurrent() {
        var tracker = ReplicaLagTracker(standbyCount: 1)
        // Nothing is written for ten seconds: the primary's position never moves, the standby has it all.
        for second in 0...10 {
            tracker.recordPrimary(WALPosition(1_000), sentAt: Self.at(second * 1000))
            tracker.recordStandby(0, Self.standby(1_000))
        }
        #expect(tracker.lag(of: 0, now: Self.at(10_050)) == .milliseconds(50))
        #expect(tracker.choose(now: Self.at(10_050), maximumLag: .seconds(1), token: nil) == 0)
    }

    /// A standby more readings behind than the tracker keeps: its lag is still known (overstated by at most the
    /// thinned readings' spacing), not unknown until it has caught up to within the limit.
    @Test func aStandbyFurtherBehindThanTheReadingLimitHasAKnownLag() throws {
        var tracker = ReplicaLagTracker(standbyCount: 1)
        let count = ReplicaLagTracker.readingLimit * 3
        // The primary advances one byte per 10 ms; the standby answers nothing meanwhile (as if slow to reach).
        for tick in 0..<count {
            tracker.recordPrimary(WALPosition(1_000 + UInt64(tick)), sentAt: Self.at(tick * 10))
        }
        #expect(tracker.readings.count <= ReplicaLagTracker.readingLimit)
        #expect(tracker.readings.first?.position == WALPosition(1_000))
        // It has replayed up to the 100th reading's position, far behind the newest the tracker kept.
        tracker.recordStandby(0, Self.standby(1_100))
        let now = Self.at(count * 10)
        let lag = try #require(tracker.lag(of: 0, now: now))
        // At least the true lag (the 100th reading was sent at 1 s), overstated by no more than the thinned
        // readings' spacing there (well under a second of the two minutes recorded). Injected instants only.
        let overstatement = lag - (now - Self.at(1_000))
        let spacingBound = Duration.seconds(1)
        #expect(overstatement >= .zero)
        #expect(overstatement < spacingBound)
    }

    @Test func aStandbyThatStopsReplayingFallsOutOnceTheBoundHasPassed() {
        var tracker = ReplicaLagTracker(standbyCount: 1)
        tracker.recordPrimary(WALPosition(1_000), sentAt: Self.at(0))
        tracker.recordStandby(0, Self.standby(1_000))
        // The primary moves on; the standby stays at 1,000 (paused).
        for tick in 1...20 {
            tracker.recordPrimary(WALPosition(1_000 + UInt64(tick)), sentAt: Self.at(tick * 100))
            tracker.recordStandby(0, Self.standby(1_000))
        }
        #expect(tracker.lag(of: 0, now: Self.at(2_000)) == .seconds(2))
        #expect(tracker.choose(now: Self.at(900), maximumLag: .seconds(1), token: nil) == 0)
        #expect(tracker.choose(now: Self.at(1_001), maximumLag: .seconds(1), token: nil) == nil)
    }

    @Test func aStandbyNoOneCanReachAgesWithTheClock() {
        var tracker = ReplicaLagTracker(standbyCount: 1)
        tracker.recordPrimary(WALPosition(1_000), sentAt: Self.at(0))
        tracker.recordStandby(0, Self.standby(1_000))
        // No more readings at all (the monitor cannot reach either server): the read path's clock still moves.
        #expect(tracker.choose(now: Self.at(999), maximumLag: .seconds(1), token: nil) == 0)
        #expect(tracker.choose(now: Self.at(1_001), maximumLag: .seconds(1), token: nil) == nil)
    }

    @Test func aStandbyNeverMeasuredOrNotInRecoveryAnswersNothing() {
        var tracker = ReplicaLagTracker(standbyCount: 2)
        #expect(tracker.choose(now: Self.at(0), maximumLag: .seconds(1), token: nil) == nil)
        tracker.recordPrimary(WALPosition(1_000), sentAt: Self.at(0))
        tracker.recordStandby(0, .init(inRecovery: false, replayed: nil))
        tracker.recordStandby(1, Self.standby(999))
        #expect(tracker.lag(of: 0, now: Self.at(10)) == nil)
        #expect(tracker.lag(of: 1, now: Self.at(10)) == nil, "it has not replayed any reading")
        #expect(tracker.choose(now: Self.at(10), maximumLag: .seconds(1), token: nil) == nil)
    }

    @Test func aTokenIsServedOnlyByAStandbyThatReplayedIt() {
        var tracker = ReplicaLagTracker(standbyCount: 2)
        tracker.recordPrimary(WALPosition(1_000), sentAt: Self.at(0))
        tracker.recordStandby(0, Self.standby(1_000))
        tracker.recordStandby(1, Self.standby(1_500))
        for _ in 0..<4 {
            #expect(tracker.choose(now: Self.at(10), maximumLag: .seconds(1), token: WALPosition(1_200)) == 1)
        }
        #expect(tracker.choose(now: Self.at(10), maximumLag: .seconds(1), token: WALPosition(2_000)) == nil)
        // Without a token they take turns.
        let turns = (0..<4).compactMap { _ in tracker.choose(now: Self.at(10), maximumLag: .seconds(1), token: nil) }
        #expect(Set(turns) == [0, 1])
    }

    @Test func aPositionJustPastAPageHeaderIsCoveredByTheRecordsBeforeIt() {
        // The primary's insert position right after a page header (24 bytes) or a segment's long header (40).
        #expect(WALPosition(3 * 8192).covers(WALPosition(3 * 8192 + 24)))
        #expect(WALPosition(16 * 1024 * 1024).covers(WALPosition(16 * 1024 * 1024 + 40)))
        #expect(!WALPosition(3 * 8192).covers(WALPosition(3 * 8192 + 32)))
        #expect(!WALPosition(3 * 8192 - 8).covers(WALPosition(3 * 8192 + 24)))
    }

    @Test func theReadReplicaURLBecomesOneConfigurationPerStandby() throws {
        let many = try ReadReplicaConfiguration(url: "postgresql://reader@db-a:5433,db-b:5434/ledger?sslmode=require")
            .standbys()
        #expect(many.map(\.label) == ["db-a:5433", "db-b:5434"])
        #expect(many.map { $0.configuration.host } == ["db-a", "db-b"])
        #expect(many.map { $0.configuration.port } == ["5433", "5434"])
        #expect(many.allSatisfy { $0.configuration.database == "ledger" && $0.configuration.sslMode == "require" })

        let onePort = try ReadReplicaConfiguration(url: "host=a,b port=6432 dbname=ledger").standbys()
        #expect(onePort.map(\.label) == ["a:6432", "b:6432"])

        #expect(throws: ConfigurationError.self) {
            try ReadReplicaConfiguration(url: "host=a,b,c port=1,2 dbname=ledger").standbys()
        }
        #expect(throws: (any Error).self) { try ReadReplicaConfiguration(url: "postgresql://%zz").standbys() }
    }
}
