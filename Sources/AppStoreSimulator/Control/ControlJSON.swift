import Foundation

/// The control API's JSON: snake_case keys (`bundle_id`, `receipt_data`), mapped to Swift names with
/// Apple's acronyms (`bundleID`, `notificationURL`, `privateKeyPEM`).
public enum ControlJSON {
    private static let acronyms: [String: String] = [
        "id": "ID", "ids": "IDs", "url": "URL", "api": "API", "pem": "PEM", "der": "DER", "uuid": "UUID",
        "uuids": "UUIDs",
    ]

    /// An encoder writing the control API's snake_case JSON.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .custom { path in AnyKey(snakeCase(path[path.count - 1].stringValue)) }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A decoder reading the control API's snake_case JSON into this module's types.
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in
            let key = path[path.count - 1].stringValue
            let words = key.split(separator: "_").map(String.init)
            guard words.count > 1 || acronyms[key] != nil else { return AnyKey(key) }
            var name = words[0]
            for word in words.dropFirst() {
                name += acronyms[word] ?? (word.prefix(1).uppercased() + word.dropFirst())
            }
            return AnyKey(name)
        }
        return decoder
    }

    /// `notificationUUIDs` → `notification_uuids`, `bundleID` → `bundle_id`, `privateKeyPEM` → `private_key_pem`.
    static func snakeCase(_ name: String) -> String {
        var text = name
        for (acronym, word) in [
            ("UUIDs", "Uuids"), ("UUID", "Uuid"), ("IDs", "Ids"), ("ID", "Id"), ("URL", "Url"), ("API", "Api"),
            ("PEM", "Pem"), ("DER", "Der"),
        ] {
            text = text.replacingOccurrences(of: acronym, with: word)
        }
        var out = ""
        for character in text {
            if character.isUppercase {
                if !out.isEmpty { out += "_" }
                out += character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
