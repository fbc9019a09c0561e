import Foundation
import SubLedgerCore

/// Which payload field states when Apple signed a JWS, the moment its certificates must have been valid
/// at under `CertificateValidationTime.signedDate`.
///
/// Transactions, renewal info and notifications carry `signedDate`. An app transaction's signing moment is
/// its `receiptCreationDate` (StoreKit's `AppTransaction.signedDate` is that field, and Apple's App Store
/// Server Library checks app transactions' chains at it); `signedDate` there is only a fallback.
public enum PayloadSigningDate: Sendable, Hashable {
    /// `signedDate`.
    case signedDate
    /// `receiptCreationDate`, else `signedDate`.
    case receiptCreationDate

    /// The payload members a signing date may be read from; `CompactJWS` keeps their raw text.
    static let memberNames: Set<String> = ["signedDate", "receiptCreationDate"]

    /// The signing moment read from the payload's members (`CompactJWS.signingDateMembers`); `nil` when the
    /// payload has none (the caller then uses its clock, as Apple's library does).
    ///
    /// Read before the signature is checked: the value only selects the certificate-validity time, and a
    /// forged value fails the signature check that follows. A value that is present but not a number of
    /// milliseconds in range refuses the payload; a fraction (Xcode writes them) is cut to the millisecond.
    /// Only the members' own text is decoded here, never the whole payload again.
    func read(from members: [String: [UInt8]]) throws(JWSVerificationError) -> Instant? {
        var dates: [String: Milliseconds] = [:]
        for (name, text) in members where text != Array("null".utf8) {
            do {
                dates[name] = try JSONDecoder().decode(Milliseconds.self, from: Data(text))
            } catch {
                // A date that is not a number: the payload decoder that follows reports it.
                return nil
            }
        }
        let chosen: Milliseconds?
        switch self {
        case .signedDate: chosen = dates["signedDate"]
        case .receiptCreationDate: chosen = dates["receiptCreationDate"] ?? dates["signedDate"]
        }
        guard let chosen else { return nil }
        // `Instant.acceptedRange` ends on a whole second: swift-certificates rounds the validation time to
        // the nearest second and traps past year 9999.
        guard let value = chosen.value, let instant = Instant(acceptedMillisecondsSince1970: value) else {
            throw JWSVerificationError(.malformedPayload, detail: "signing date out of range")
        }
        return instant
    }

    /// A JSON number of milliseconds, whole or fractional; `value` is `nil` when it is not finite or not
    /// representable.
    private struct Milliseconds: Decodable {
        var value: Int64?

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let whole = try? container.decode(Int64.self) {
                value = whole
                return
            }
            let number = try container.decode(Double.self)
            guard number.isFinite, number >= 0, number < 9.2e18 else {
                value = nil
                return
            }
            value = Int64(number.rounded(.down))
        }
    }
}
