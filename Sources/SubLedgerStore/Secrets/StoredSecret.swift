import PostgresLibPQ

/// One secret field of a row as stored: plaintext (written before secrets were sealed, or explicitly
/// allowed) or sealed.
enum StoredSecret: Sendable, Hashable {
    case plaintext(String)
    case sealed(SealedSecret)

    /// The field whose plaintext column is at `index`, followed by its sealed and key id columns; `nil`
    /// when the field is unset.
    init?(_ row: PostgresRow, at index: Int) throws {
        if let sealed = try row.decode([UInt8]?.self, at: index + 1) {
            guard let keyID = try row.decode(String?.self, at: index + 2) else {
                throw StoreError(code: .corruptRow, message: "a sealed secret names no key")
            }
            self = .sealed(SealedSecret(keyID: keyID, combined: sealed))
        } else if let plaintext = try row.decode(String?.self, at: index) {
            self = .plaintext(plaintext)
        } else {
            return nil
        }
    }

    var plaintext: String? {
        if case .plaintext(let text) = self { return text }
        return nil
    }

    var sealed: SealedSecret? {
        if case .sealed(let sealed) = self { return sealed }
        return nil
    }

    /// The secret in memory.
    func open(for purpose: SecretPurpose, with keys: SecretKeyring) throws(SecretError) -> String {
        switch self {
        case .plaintext(let text): return text
        case .sealed(let sealed): return try keys.open(sealed, for: purpose)
        }
    }
}
