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

    /// The payload members a signing date may be read from.
    static let memberNames: Set<String> = ["signedDate", "receiptCreationDate"]

    /// The signing moment read from the payload's members (`CompactJWS.payloadMembers`); `nil` when the
    /// payload has none, or is not an object (the caller then uses its clock, as Apple's library does).
    ///
    /// Read before the signature is checked: the value only selects the certificate-validity time, and a
    /// forged value fails the signature check that follows. A value that is present but not a number of
    /// milliseconds in range refuses the payload; a fraction (Xcode writes them) is cut to the millisecond.
    /// Only the members' own text is decoded here, never the whole payload again.
    func read(from members: CapturedJSONObject?) throws(JWSVerificationError) -> Instant? {
        var dates: [String: Milliseconds] = [:]
        for name in Self.memberNames {
            guard let text = members?[name], !text.elementsEqual("null".utf8) else { continue }
            if let whole = Self.wholeMilliseconds(text) {
                // Apple's form, read without a JSON decoder (three per notification made one a visible cost).
                dates[name] = Milliseconds(value: whole)
                continue
            }
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

    /// The value of JSON text made of 1 to 18 decimal digits (it cannot overflow `Int64`); `nil` for
    /// anything else, which the JSON decoder then reads. The text has already been checked to be a JSON
    /// value, so such digits are a whole number exactly as the decoder would read it.
    static func wholeMilliseconds(_ text: ArraySlice<UInt8>) -> Int64? {
        guard !text.isEmpty, text.count <= 18 else { return nil }
        var value: Int64 = 0
        for byte in text {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// A JSON number of milliseconds, whole or fractional; `value` is `nil` when it is not finite or not
    /// representable.
    private struct Milliseconds: Decodable {
        var value: Int64?

        init(value: Int64?) {
            self.value = value
        }

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
