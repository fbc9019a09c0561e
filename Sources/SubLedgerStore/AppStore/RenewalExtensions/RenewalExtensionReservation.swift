/// What `RenewalExtensionStore.reserve` did: recorded the extension as requested, or refused it.
public enum RenewalExtensionReservation: Sendable, Hashable {
    /// Recorded as `requested` (a refused or failed request identifier again: recorded anew); Apple may be called.
    case reserved
    /// The chain already has `count` extensions requested or granted within the window: Apple's limit.
    case limitReached(count: Int)
    /// This request identifier was recorded for the chain before, `succeeded` or still `requested` (a
    /// retry): its record.
    case alreadyRecorded(RenewalExtensionRecord)
}
