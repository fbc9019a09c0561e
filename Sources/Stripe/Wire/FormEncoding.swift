import Foundation

/// Stripe's request encoding: `application/x-www-form-urlencoded` pairs, nested values in bracket notation
/// (`metadata[order]=…`, `line_items[0][price]=…`, `expand[]=…`), for bodies and list queries alike.
public enum FormEncoding {
    /// `pairs` percent-encoded and joined with `&`, in order.
    public static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { name, value in escape(name) + "=" + escape(value) }.joined(separator: "&")
    }

    private static let unreserved: CharacterSet = {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return allowed
    }()

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
