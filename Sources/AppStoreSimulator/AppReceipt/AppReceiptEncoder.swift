import SubLedgerCore
import SwiftASN1

/// What an app receipt states: the app, and the in-app purchases of one Apple ID at one moment.
struct AppReceiptContents: Sendable {
    var receiptType: String
    var appItemID: Int64
    var bundleID: String
    var applicationVersion: String
    var originalApplicationVersion: String
    var creationDate: Instant
    var originalPurchaseDate: Instant
    var opaqueValue: [UInt8]
    var purchases: [TransactionRecord]
}

/// Encodes Apple's receipt payload: a DER `SET OF ReceiptAttribute { type, version, value OCTET STRING }`,
/// in-app purchases as nested sets under type 17 (types 1701–1719), dates as RFC 3339 IA5Strings.
enum AppReceiptEncoder {
    static func payload(_ contents: AppReceiptContents) throws -> [UInt8] {
        var attributes: [[UInt8]] = [
            try attribute(0, utf8: contents.receiptType),
            try attribute(1, integer: contents.appItemID),
            try attribute(2, utf8: contents.bundleID),
            try attribute(3, utf8: contents.applicationVersion),
            try attribute(4, raw: contents.opaqueValue),
            try attribute(12, date: contents.creationDate),
            try attribute(18, date: contents.originalPurchaseDate),
            try attribute(19, utf8: contents.originalApplicationVersion),
        ]
        for purchase in contents.purchases {
            attributes.append(try attribute(17, raw: try inAppPayload(purchase)))
        }
        return try set(attributes)
    }

    private static func inAppPayload(_ record: TransactionRecord) throws -> [UInt8] {
        var attributes: [[UInt8]] = [
            try attribute(1701, integer: Int64(record.quantity)),
            try attribute(1702, utf8: record.productID),
            try attribute(1703, utf8: record.transactionID),
            try attribute(1704, date: record.purchaseDate),
            try attribute(1705, utf8: record.originalTransactionID),
            try attribute(1706, date: record.originalPurchaseDate),
        ]
        // Apple writes the subscription-only fields as empty values for other products.
        if let expires = record.expiresDate {
            attributes.append(try attribute(1708, date: expires))
        } else {
            attributes.append(try attribute(1708, ia5: ""))
        }
        if let webOrder = record.webOrderLineItemID, let number = Int64(webOrder) {
            attributes.append(try attribute(1711, integer: number))
        }
        if let cancellation = record.revocationDate {
            attributes.append(try attribute(1712, date: cancellation))
        } else {
            attributes.append(try attribute(1712, ia5: ""))
        }
        if record.productType == .autoRenewable {
            attributes.append(try attribute(1713, integer: record.isFreeTrial ? 1 : 0))
            attributes.append(try attribute(1719, integer: record.isFreeTrial ? 1 : 0))
        }
        return try set(attributes)
    }

    // MARK: DER pieces

    /// A DER SET OF: elements sorted by their encodings, as DER requires.
    private static func set(_ elements: [[UInt8]]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        serializer.appendConstructedNode(identifier: .set) { inner in
            for element in elements.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                inner.serializeRawBytes(element)
            }
        }
        return serializer.serializedBytes
    }

    private static func attribute(_ type: Int64, raw value: [UInt8]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { inner in
            try inner.serialize(type)
            try inner.serialize(Int64(1))
            try inner.serialize(ASN1OctetString(contentBytes: ArraySlice(value)))
        }
        return serializer.serializedBytes
    }

    private static func attribute(_ type: Int64, utf8 text: String) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(ASN1UTF8String(text))
        return try attribute(type, raw: serializer.serializedBytes)
    }

    private static func attribute(_ type: Int64, ia5 text: String) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(ASN1IA5String(contentBytes: ArraySlice(text.utf8)))
        return try attribute(type, raw: serializer.serializedBytes)
    }

    private static func attribute(_ type: Int64, date: Instant) throws -> [UInt8] {
        try attribute(type, ia5: RFC3339.format(date, precision: .seconds))
    }

    private static func attribute(_ type: Int64, integer: Int64) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(integer)
        return try attribute(type, raw: serializer.serializedBytes)
    }
}
