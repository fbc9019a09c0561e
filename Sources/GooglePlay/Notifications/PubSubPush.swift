import Foundation

/// The body of a Pub/Sub push request: `{"message": {"data", "messageId", "publishTime", "attributes"},
/// "subscription"}`. Pub/Sub also writes `message_id` and `publish_time`; both spellings are read.
public struct PubSubPushEnvelope: Codable, Hashable, Sendable {
    public var message: PubSubMessage
    /// `projects/{project}/subscriptions/{subscription}`.
    public var subscription: String?

    public init(message: PubSubMessage, subscription: String?) {
        self.message = message
        self.subscription = subscription
    }
}

/// The `message` of a push.
public struct PubSubMessage: Codable, Hashable, Sendable {
    /// The published bytes, standard base64.
    public var data: String?
    public var messageId: String?
    /// RFC 3339.
    public var publishTime: String?
    public var attributes: [String: String]?

    public init(data: String?, messageId: String?, publishTime: String?, attributes: [String: String]? = nil) {
        self.data = data
        self.messageId = messageId
        self.publishTime = publishTime
        self.attributes = attributes
    }

    enum CodingKeys: String, CodingKey {
        case data, messageId, publishTime, attributes
        case messageIdSnake = "message_id"
        case publishTimeSnake = "publish_time"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        data = try container.decodeIfPresent(String.self, forKey: .data)
        messageId =
            try container.decodeIfPresent(String.self, forKey: .messageId)
            ?? container.decodeIfPresent(String.self, forKey: .messageIdSnake)
        publishTime =
            try container.decodeIfPresent(String.self, forKey: .publishTime)
            ?? container.decodeIfPresent(String.self, forKey: .publishTimeSnake)
        attributes = try container.decodeIfPresent([String: String].self, forKey: .attributes)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(data, forKey: .data)
        try container.encodeIfPresent(messageId, forKey: .messageId)
        try container.encodeIfPresent(publishTime, forKey: .publishTime)
        try container.encodeIfPresent(attributes, forKey: .attributes)
    }
}

/// Reads a Pub/Sub push of a real-time developer notification: the envelope, its base64 `data`, and the
/// `DeveloperNotification` inside, each bounded and checked before the next is read.
public enum DeveloperNotificationDecoder {
    /// The largest push body accepted. An RTDN is a few hundred bytes; Pub/Sub's own limit (10 MB) is far
    /// more than an honest push needs.
    public static let maximumBodyBytes = 64 * 1024
    /// The largest decoded `data` accepted.
    public static let maximumDataBytes = 16 * 1024

    /// The envelope and the notification of a push body.
    public static func decode(pushBody body: some DataProtocol) throws(NotificationDecodingError)
        -> (envelope: PubSubPushEnvelope, notification: DeveloperNotification)
    {
        guard body.count <= maximumBodyBytes else { throw NotificationDecodingError(.tooLarge) }
        let bytes = Data(body)
        try checkText(bytes)
        let envelope: PubSubPushEnvelope
        do {
            envelope = try JSONDecoder().decode(PubSubPushEnvelope.self, from: bytes)
        } catch {
            throw NotificationDecodingError(.malformedEnvelope)
        }
        guard let data = envelope.message.data, !data.isEmpty else { throw NotificationDecodingError(.missingData) }
        // Base64 grows data by 4/3: a longer text cannot decode within the bound.
        guard data.utf8.count <= (maximumDataBytes / 3 + 1) * 4 else { throw NotificationDecodingError(.tooLarge) }
        guard let decoded = Data(base64Encoded: data) else { throw NotificationDecodingError(.malformedData) }
        return (envelope, try decode(notificationData: decoded))
    }

    /// The notification of decoded `message.data`.
    public static func decode(notificationData data: Data) throws(NotificationDecodingError) -> DeveloperNotification {
        guard data.count <= maximumDataBytes else { throw NotificationDecodingError(.tooLarge) }
        try checkText(data)
        let notification: DeveloperNotification
        do {
            notification = try JSONDecoder().decode(DeveloperNotification.self, from: data)
        } catch {
            throw NotificationDecodingError(.malformedNotification)
        }
        guard let packageName = notification.packageName,
            WireText.isAcceptable(packageName, maximumLength: WireText.maximumPackageNameLength)
        else { throw NotificationDecodingError(.malformedNotification) }
        for token in [
            notification.subscriptionNotification?.purchaseToken,
            notification.oneTimeProductNotification?.purchaseToken,
            notification.voidedPurchaseNotification?.purchaseToken,
        ] {
            if let token, !WireText.isAcceptable(token, maximumLength: WireText.maximumPurchaseTokenLength) {
                throw NotificationDecodingError(.malformedNotification)
            }
        }
        return notification
    }

    /// UTF-8 without NUL: Foundation's decoder would otherwise decide what invalid bytes mean.
    private static func checkText(_ bytes: Data) throws(NotificationDecodingError) {
        guard !bytes.contains(0), String(validating: bytes, as: UTF8.self) != nil else {
            throw NotificationDecodingError(.invalidText)
        }
    }
}

/// Why a push was not read as a real-time developer notification.
public struct NotificationDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The body or its data is larger than the bounds.
        public static let tooLarge = Code("tooLarge")
        /// Not UTF-8, or holds a NUL.
        public static let invalidText = Code("invalidText")
        /// Not a Pub/Sub push envelope.
        public static let malformedEnvelope = Code("malformedEnvelope")
        /// The message has no data.
        public static let missingData = Code("missingData")
        /// The data is not base64.
        public static let malformedData = Code("malformedData")
        /// The data is not a `DeveloperNotification` (or its package name or a purchase token is unacceptable).
        public static let malformedNotification = Code("malformedNotification")

        public var description: String { name }
    }

    public let code: Code

    public init(_ code: Code) { self.code = code }

    public var description: String { "NotificationDecodingError(\(code))" }
}
