import Foundation
import SubLedgerCore

/// A JWS whose chain and signature were verified; its payload is authentic but not yet interpreted.
public struct VerifiedJWS: Sendable {
    /// The protected header.
    public var header: JWSHeader
    /// The payload bytes (JSON).
    public var payload: Data
    /// The payload's `signedDate`, when present.
    public var signedDate: Instant?
    /// The moment the certificates were checked at.
    public var certificatesCheckedAt: Instant
}
