// Typed views of the raw numbers in Apple's renewal payloads (StoreKit 2 and legacy pending_renewal_info).

/// Apple's `autoRenewStatus` / `auto_renew_status`.
public enum AutoRenewStatus: Int, Hashable, Sendable, Codable, CaseIterable {
    case off = 0
    case on = 1
}
