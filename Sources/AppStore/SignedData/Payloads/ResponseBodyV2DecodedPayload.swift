/// Apple's `ResponseBodyV2DecodedPayload`: a version 2 server notification, as signed by the App Store.
///
/// Exactly one of `data`, `summary`, `externalPurchaseToken` and `appData` is present.
public struct ResponseBodyV2DecodedPayload: Codable, Hashable, Sendable {
    /// Raw `notificationType`; see `notificationType`.
    public var rawNotificationType: String?
    /// Raw `subtype`; see `subtype`.
    public var rawSubtype: String?
    /// Apple's `notificationUUID`.
    public var notificationUUID: String?
    /// Apple's `data`.
    public var data: NotificationData?
    /// The notification schema version, `2.0`.
    public var version: String?
    /// Apple's `signedDate`, milliseconds since 1970.
    @AppleMilliseconds public var signedDate: Int64?
    /// Apple's `summary`.
    public var summary: NotificationSummary?
    /// Apple's `externalPurchaseToken`.
    public var externalPurchaseToken: ExternalPurchaseToken?
    /// Apple's `appData`.
    public var appData: NotificationAppData?

    /// `rawNotificationType` as a typed value; `nil` when absent or a value this code does not know yet.
    public var notificationType: NotificationTypeV2? { rawNotificationType.flatMap(NotificationTypeV2.init(rawValue:)) }
    /// `rawSubtype` as a typed value; `nil` when absent or a value this code does not know yet.
    public var subtype: NotificationSubtypeV2? { rawSubtype.flatMap(NotificationSubtypeV2.init(rawValue:)) }

    /// Creates a payload.
    public init(
        rawNotificationType: String? = nil, rawSubtype: String? = nil, notificationUUID: String? = nil,
        data: NotificationData? = nil, version: String? = nil, signedDate: Int64? = nil,
        summary: NotificationSummary? = nil, externalPurchaseToken: ExternalPurchaseToken? = nil,
        appData: NotificationAppData? = nil
    ) {
        self.rawNotificationType = rawNotificationType
        self.rawSubtype = rawSubtype
        self.notificationUUID = notificationUUID
        self.data = data
        self.version = version
        self.signedDate = signedDate
        self.summary = summary
        self.externalPurchaseToken = externalPurchaseToken
        self.appData = appData
    }

    enum CodingKeys: String, CodingKey {
        case rawNotificationType = "notificationType"
        case rawSubtype = "subtype"
        case notificationUUID, data, version, signedDate, summary, externalPurchaseToken, appData
    }
}

extension ResponseBodyV2DecodedPayload: PlainReadablePayload {
    /// The payload read from its plain members (see `PlainReadablePayload`), as `JSONDecoder` reads it.
    init(plain members: CapturedJSONObject) throws(CapturedJSONObject.NotPlain) {
        typealias Key = CodingKeys
        self.init(
            rawNotificationType: try members.string(Key.rawNotificationType),
            rawSubtype: try members.string(Key.rawSubtype),
            notificationUUID: try members.string(Key.notificationUUID),
            data: try members.object(Key.data, NotificationData.init(plain:)),
            version: try members.string(Key.version),
            signedDate: try members.milliseconds(Key.signedDate),
            summary: try members.object(Key.summary, NotificationSummary.init(plain:)),
            externalPurchaseToken: try members.object(Key.externalPurchaseToken, ExternalPurchaseToken.init(plain:)),
            appData: try members.object(Key.appData, NotificationAppData.init(plain:))
        )
    }
}
