import SwiftASN1

/// Apple's marker extensions that identify App Store signing certificates.
public enum AppleMarkerOID: Sendable {
    /// Carried by the leaf certificate that signs App Store data (1.2.840.113635.100.6.11.1).
    public static let appStoreSigningLeaf: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 11, 1]
    /// Carried by the Apple Worldwide Developer Relations intermediate (1.2.840.113635.100.6.2.1).
    public static let worldwideDeveloperRelationsIntermediate: ASN1ObjectIdentifier = [
        1, 2, 840, 113_635, 100, 6, 2, 1,
    ]
}
