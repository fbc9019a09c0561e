import AppStoreStore
import SubLedgerCore
import SubLedgerUseCases
import Testing

/// `subledger notifications recover`'s arguments: the command validates them with `RecoveryRequest.parse`
/// before it opens the database, and answers a bad one with a clear error.
@Suite struct RecoveryRequestTests {
    static let now = Instant(millisecondsSince1970: 1_795_000_000_000)  // 2026-11-18T11:06:40Z
    static let day: Int64 = 86_400_000

    @Test func aValidSinceAppAndEnvironmentAreRead() throws {
        let request = try RecoveryRequest.parse(
            since: "2026-11-01T00:00:00Z", bundleID: "com.example.one", environment: "sandbox", now: Self.now)
        #expect(request.since == Instant(millisecondsSince1970: 1_793_491_200_000))
        #expect(request.bundleID == "com.example.one")
        #expect(request.environment == .sandbox)
        #expect(
            try RecoveryRequest.parse(since: nil, bundleID: nil, environment: nil, now: Self.now) == RecoveryRequest())
    }

    @Test(arguments: ["yesterday", "2026-13-01T00:00:00Z", "1793491200000", "", "2026-11-01"])
    func aSinceThatIsNotRFC3339IsRefused(_ since: String) {
        #expect {
            try RecoveryRequest.parse(since: since, bundleID: nil, environment: nil, now: Self.now)
        } throws: { error in
            let error = error as? RecoveryError
            return error?.code == .invalidSince && error?.message.contains("RFC 3339") == true
        }
    }

    @Test func aSinceInTheFutureIsRefused() {
        #expect {
            try RecoveryRequest.parse(since: "2026-12-01T00:00:00Z", bundleID: nil, environment: nil, now: Self.now)
        } throws: { error in
            let error = error as? RecoveryError
            return error?.code == .sinceInFuture && error?.message.contains("future") == true
        }
    }

    @Test func aSinceOlderThan180DaysIsRefusedNamingTheEarliest() {
        let old = Representation181DaysBefore.text(Self.now)
        #expect {
            try RecoveryRequest.parse(since: old, bundleID: nil, environment: nil, now: Self.now)
        } throws: { error in
            let error = error as? RecoveryError
            return error?.code == .sinceBeyondRetention && error?.message.contains("180 days") == true
                && error?.message.contains("2026-05-22T11:06:40") == true
        }
        // 179 days back is fine.
        let recent = Instant(millisecondsSince1970: Self.now.millisecondsSince1970 - 179 * Self.day)
        #expect(
            (try? RecoveryRequest.parse(
                since: Representation181DaysBefore.format(recent), bundleID: nil, environment: nil, now: Self.now))
                != nil)
    }

    @Test func anUnknownEnvironmentOrAnEmptyAppIsRefused() {
        #expect {
            try RecoveryRequest.parse(since: nil, bundleID: nil, environment: "Xcode", now: Self.now)
        } throws: { ($0 as? RecoveryError)?.code == .invalidEnvironment }
        #expect {
            try RecoveryRequest.parse(since: nil, bundleID: nil, environment: "staging", now: Self.now)
        } throws: { ($0 as? RecoveryError)?.code == .invalidEnvironment }
        #expect {
            try RecoveryRequest.parse(since: nil, bundleID: "", environment: nil, now: Self.now)
        } throws: { ($0 as? RecoveryError)?.code == .unknownApp }
    }
}

/// RFC 3339 text of instants, for the tests.
enum Representation181DaysBefore {
    static func text(_ now: Instant) -> String {
        format(Instant(millisecondsSince1970: now.millisecondsSince1970 - 181 * 86_400_000))
    }

    static func format(_ instant: Instant) -> String {
        RFC3339.format(instant)
    }
}
