import Testing

@testable import SubLedgerCore

/// Two renewal states of one chain signed in the same millisecond: the one that does not auto-renew is kept,
/// whichever arrives first.
@Suite struct RenewalInfoSameInstantTests {
    typealias F = Fixtures

    @Test func atTheSameInstantTheStateThatDoesNotRenewWinsInEitherOrder() {
        let on = F.renewal(chain: "s1", willAutoRenew: true, observedOn: 3)
        let off = F.renewal(chain: "s1", willAutoRenew: false, observedOn: 3)
        #expect(on.observedAt == off.observedAt)
        #expect(RenewalInfoVersion.isNewer(off, than: on))
        #expect(!RenewalInfoVersion.isNewer(on, than: off))
        #expect(RenewalInfoVersion.newest([on, off])?.willAutoRenew == false)
        #expect(RenewalInfoVersion.newest([off, on])?.willAutoRenew == false)
    }

    @Test func aLaterObservationStillWinsWhateverItSays() {
        let off = F.renewal(chain: "s1", willAutoRenew: false, observedOn: 3)
        let laterOn = F.renewal(chain: "s1", willAutoRenew: true, observedOn: 3, observedHours: 1)
        #expect(RenewalInfoVersion.isNewer(laterOn, than: off))
        #expect(RenewalInfoVersion.newest([laterOn, off])?.willAutoRenew == true)
    }
}
