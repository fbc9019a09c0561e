import Foundation
import SubLedgerCore

/// Reads Paddle's JSON into Paddle's values, refusing what SubLedger cannot keep with a `PaddleWireError` that names
/// the field: an id that is not one, money that is not a non-negative `Int64` of minor units, a time that is not
/// RFC 3339 within the instants SubLedger accepts, a currency that is not three uppercase letters, text with NUL or
/// longer than its bound. Nothing in a body, however long, deep or malformed, can trap.
public enum PaddleDecoding {
    /// The longest body read: a page of 200 transactions with their line items fits many times over.
    public static let maximumBodyBytes = 16 * 1024 * 1024

    /// `body` as `type`, or the field that could not be read.
    public static func decode<Value: Decodable>(_ type: Value.Type, from body: Data) throws(PaddleWireError) -> Value {
        guard body.count <= maximumBodyBytes else { throw PaddleWireError(.tooLarge, "") }
        do {
            return try JSONDecoder().decode(Value.self, from: body)
        } catch let error as PaddleWireError {
            throw error
        } catch let error as DecodingError {
            throw wireError(error)
        } catch {
            throw PaddleWireError(.malformedJSON, "")
        }
    }

    /// The field a `DecodingError` is about, as Paddle names it.
    static func wireError(_ error: DecodingError) -> PaddleWireError {
        switch error {
        case .keyNotFound(let key, let context):
            return PaddleWireError(.missingField, path(context.codingPath + [key]))
        case .valueNotFound(_, let context):
            return PaddleWireError(.missingField, path(context.codingPath))
        case .typeMismatch(_, let context):
            return PaddleWireError(
                context.codingPath.isEmpty ? .malformedJSON : .invalidField, path(context.codingPath))
        case .dataCorrupted(let context):
            return PaddleWireError(
                context.codingPath.isEmpty ? .malformedJSON : .invalidField, path(context.codingPath))
        @unknown default:
            return PaddleWireError(.malformedJSON, "")
        }
    }

    /// `items[0].price.id`: a coding path in Paddle's words.
    static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }

    /// Whether `text` is at most `maximumBytes` of UTF-8 without NUL (which PostgreSQL's text cannot hold).
    static func isBoundedText(_ text: String, maximumBytes: Int) -> Bool {
        text.utf8.count <= maximumBytes && !text.utf8.contains(0)
    }
}

/// Any JSON value, read and dropped: what a field SubLedger does not keep decodes as.
struct PaddleIgnoredValue: Decodable {
    init(from decoder: any Decoder) throws {}
}

extension KeyedDecodingContainer {
    func fieldPath(_ key: Key) -> String { PaddleDecoding.path(codingPath + [key]) }

    func invalid(_ key: Key) -> PaddleWireError { PaddleWireError(.invalidField, fieldPath(key)) }

    /// Text of at most `maximumBytes` without NUL; `nil` when absent or `null`.
    func paddleTextIfPresent(_ key: Key, maximumBytes: Int = 64) throws -> String? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard PaddleDecoding.isBoundedText(text, maximumBytes: maximumBytes), !text.isEmpty else { throw invalid(key) }
        return text
    }

    func paddleText(_ key: Key, maximumBytes: Int = 64) throws -> String {
        guard let text = try paddleTextIfPresent(key, maximumBytes: maximumBytes) else {
            throw PaddleWireError(.missingField, fieldPath(key))
        }
        return text
    }

    /// A Paddle id (`txn_01h…`): what the ledger's identifiers accept, 1 to 64 characters of `A-Z a-z 0-9 . _ -`.
    func paddleIDIfPresent(_ key: Key) throws -> String? {
        guard let id = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard IdentifierRule.transactionID.accepts(id) else { throw invalid(key) }
        return id
    }

    func paddleID(_ key: Key) throws -> String {
        guard let id = try paddleIDIfPresent(key) else { throw PaddleWireError(.missingField, fieldPath(key)) }
        return id
    }

    /// A whole number in `range`; `nil` when absent or `null`. A number `Int` cannot hold (`1e30`, `1.5`) is refused
    /// here, with its field: JSONDecoder's own error for it names none.
    func paddleIntIfPresent(_ key: Key, in range: ClosedRange<Int>) throws -> Int? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        guard let value = try? decode(Int.self, forKey: key), range.contains(value) else { throw invalid(key) }
        return value
    }

    /// Money: a string of non-negative minor units fitting `Int64` (`PaddleMoney.minorUnits`).
    func paddleMoneyIfPresent(_ key: Key) throws -> Int64? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let amount = PaddleMoney.minorUnits(text) else { throw invalid(key) }
        return amount
    }

    func paddleMoney(_ key: Key) throws -> Int64 {
        guard let amount = try paddleMoneyIfPresent(key) else { throw PaddleWireError(.missingField, fieldPath(key)) }
        return amount
    }

    /// A currency code: three uppercase ASCII letters.
    func paddleCurrency(_ key: Key) throws -> String {
        let code = try decodeIfPresent(String.self, forKey: key)
        guard let code else { throw PaddleWireError(.missingField, fieldPath(key)) }
        guard PaddleCurrency.isCode(code) else { throw invalid(key) }
        return code
    }

    /// An RFC 3339 time (`2024-10-12T07:20:50.52Z`, any fraction) within `Instant.acceptedRange`.
    func paddleInstantIfPresent(_ key: Key) throws -> Instant? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard text.utf8.count <= 64, let instant = Instant(acceptedRFC3339: text) else { throw invalid(key) }
        return instant
    }

    func paddleInstant(_ key: Key) throws -> Instant {
        guard let instant = try paddleInstantIfPresent(key) else {
            throw PaddleWireError(.missingField, fieldPath(key))
        }
        return instant
    }

    /// `custom_data`: the entries whose value is text SubLedger can keep (a key of at most 255 bytes, a value of at
    /// most 1,024, neither with NUL), at most 100 of them; other entries are the seller's own and are left out.
    /// Empty when absent or `null`; anything but an object is refused.
    func paddleCustomData(_ key: Key) throws -> [String: String] {
        guard contains(key), try !decodeNil(forKey: key) else { return [:] }
        guard let entries = try? decode([String: PaddleCustomDataValue].self, forKey: key) else { throw invalid(key) }
        var kept: [String: String] = [:]
        for (name, value) in entries.sorted(by: { $0.key < $1.key }) where kept.count < 100 {
            guard case .text(let text) = value, PaddleDecoding.isBoundedText(name, maximumBytes: 255),
                PaddleDecoding.isBoundedText(text, maximumBytes: 1024)
            else { continue }
            kept[name] = text
        }
        return kept
    }
}

/// One value of `custom_data`: text, or anything else (kept by Paddle, not by SubLedger).
enum PaddleCustomDataValue: Decodable {
    case text(String)
    case other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            _ = try container.decode(PaddleIgnoredValue.self)
            self = .other
        }
    }
}
