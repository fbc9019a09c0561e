/// Checks on the identifiers Google sends (package names, purchase tokens, product and order ids): bounded
/// length, and no NUL or other control character, which no Google identifier has and which would otherwise
/// travel on into logs and the database.
public enum WireText {
    /// The longest package name Google allows.
    public static let maximumPackageNameLength = 255
    /// The longest purchase token accepted; Google's are a few hundred characters.
    public static let maximumPurchaseTokenLength = 2048
    /// The longest product, base plan, offer or order id accepted.
    public static let maximumIdentifierLength = 255

    /// Whether `text` is 1 to `maximumLength` UTF-8 bytes with no control character.
    public static func isAcceptable(_ text: String, maximumLength: Int) -> Bool {
        let count = text.utf8.count
        guard count > 0, count <= maximumLength else { return false }
        return !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
