import SwiftASN1

/// Builds app receipts shaped like Apple's: a CMS ContentInfo / SignedData whose encapsulated content is
/// the SET of receipt attributes. The signer info is a placeholder: the reader does not check signatures.
enum AppReceiptFixture {
    static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    static let dataOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]
    static let sha256OID: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let contextZero = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)

    static func utf8(_ text: String) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(ASN1UTF8String(text))
        return serializer.serializedBytes
    }

    static func ia5(_ text: String) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(ASN1IA5String(text))
        return serializer.serializedBytes
    }

    static func integer(_ value: Int64) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(value)
        return serializer.serializedBytes
    }

    /// `SET OF SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
    static func attributeSet(_ attributes: [(Int64, [UInt8])]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .set) { set in
            for (type, value) in attributes {
                try set.appendConstructedNode(identifier: .sequence) { sequence in
                    try sequence.serialize(type)
                    try sequence.serialize(Int64(1))
                    try sequence.serialize(ASN1OctetString(contentBytes: value[...]))
                }
            }
        }
        return serializer.serializedBytes
    }

    static func inAppPurchase(
        productID: String,
        transactionID: String,
        originalTransactionID: String,
        purchaseDate: String,
        expiresDate: String = "",
        quantity: Int64 = 1,
        webOrderLineItemID: Int64 = 0,
        isInIntroOfferPeriod: Int64 = 0
    ) throws -> [UInt8] {
        try attributeSet([
            (1701, integer(quantity)),
            (1702, utf8(productID)),
            (1703, utf8(transactionID)),
            (1705, utf8(originalTransactionID)),
            (1704, ia5(purchaseDate)),
            (1706, ia5(purchaseDate)),
            (1708, ia5(expiresDate)),
            (1711, integer(webOrderLineItemID)),
            (1712, ia5("")),
            (1719, integer(isInIntroOfferPeriod)),
            (1799, utf8("an attribute type Apple added later")),
        ])
    }

    /// A ContentInfo(SignedData) whose eContent is `payload`.
    static func pkcs7(payload: [UInt8], contentType: ASN1ObjectIdentifier = signedDataOID) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { contentInfo in
            try contentInfo.serialize(contentType)
            try contentInfo.appendConstructedNode(identifier: contextZero) { explicit in
                try explicit.appendConstructedNode(identifier: .sequence) { signedData in
                    try signedData.serialize(Int64(1))
                    try signedData.appendConstructedNode(identifier: .set) { digests in
                        try digests.appendConstructedNode(identifier: .sequence) { algorithm in
                            try algorithm.serialize(sha256OID)
                            try algorithm.serialize(ASN1Null())
                        }
                    }
                    try signedData.appendConstructedNode(identifier: .sequence) { encapsulated in
                        try encapsulated.serialize(dataOID)
                        try encapsulated.appendConstructedNode(identifier: contextZero) { content in
                            try content.serialize(ASN1OctetString(contentBytes: payload[...]))
                        }
                    }
                    try signedData.appendConstructedNode(identifier: .set) { signerInfos in
                        try signerInfos.appendConstructedNode(identifier: .sequence) { signerInfo in
                            try signerInfo.serialize(Int64(1))
                            try signerInfo.serialize(ASN1OctetString(contentBytes: [0x01, 0x02, 0x03]))
                        }
                    }
                }
            }
        }
        return serializer.serializedBytes
    }

    /// A typical sandbox receipt with two purchases of one subscription chain.
    static func sampleReceipt() throws -> [UInt8] {
        try pkcs7(
            payload: attributeSet([
                (0, utf8("ProductionSandbox")),
                (2, utf8("com.example")),
                (3, utf8("42")),
                (4, [0x04, 0x02, 0xAA, 0xBB]),
                (12, ia5("2023-11-14T22:13:20Z")),
                (19, utf8("1.0")),
                (
                    17,
                    inAppPurchase(
                        productID: "com.example.monthly", transactionID: "1000000000000001",
                        originalTransactionID: "1000000000000001", purchaseDate: "2023-10-14T22:13:20Z",
                        expiresDate: "2023-11-14T22:13:20Z", webOrderLineItemID: 1_000_000_080_000_001,
                        isInIntroOfferPeriod: 1
                    )
                ),
                (
                    17,
                    inAppPurchase(
                        productID: "com.example.monthly", transactionID: "1000000000000002",
                        originalTransactionID: "1000000000000001", purchaseDate: "2023-11-14T22:13:20.5Z",
                        expiresDate: "2023-12-14T22:13:20+01:00"
                    )
                ),
            ])
        )
    }

    /// Re-encodes the outermost SEQUENCE with BER indefinite length, as Apple's own receipts are.
    static func withIndefiniteOuterLength(_ der: [UInt8]) -> [UInt8] {
        guard der.count > 2, der[0] == 0x30 else { return der }
        let headerLength: Int
        if der[1] < 0x80 {
            headerLength = 2
        } else {
            headerLength = 2 + Int(der[1] & 0x7F)
        }
        return [0x30, 0x80] + der[headerLength...] + [0x00, 0x00]
    }
}
