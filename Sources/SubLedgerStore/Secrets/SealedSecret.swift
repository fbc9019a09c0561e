/// A secret as stored: the id of the key that sealed it and AES-GCM's nonce ‖ ciphertext ‖ tag.
public struct SealedSecret: Sendable, Hashable {
    public var keyID: String
    public var combined: [UInt8]

    public init(keyID: String, combined: [UInt8]) {
        self.keyID = keyID
        self.combined = combined
    }
}
