import Foundation
import SubLedgerCore

/// A Paddle event, as the events list (`GET /events`) holds it and a notification delivers it: what happened, when,
/// and the entity as it was then. SubLedger reads the entities it follows (transactions, subscriptions,
/// adjustments); every other entity's event is kept with `.other`, for the caller to ignore.
public struct PaddleEvent: Decodable, Sendable, Hashable {
    /// `evt_…`: stored once per id.
    public var eventID: String
    public var eventType: PaddleEventType
    public var occurredAt: Instant
    /// `ntf_…` when delivered as a notification (one per notification setting; a replay has its own); `nil` in the
    /// events list.
    public var notificationID: String?
    public var entity: Entity

    /// The event's `data`, read by its entity.
    public enum Entity: Sendable, Hashable {
        case transaction(PaddleTransaction)
        case subscription(PaddleSubscription)
        case adjustment(PaddleAdjustment)
        /// An entity SubLedger does not read (a customer, a product, a price, …), or an event type of none.
        case other
    }

    public init(
        eventID: String, eventType: PaddleEventType, occurredAt: Instant, notificationID: String? = nil,
        entity: Entity
    ) {
        self.eventID = eventID
        self.eventType = eventType
        self.occurredAt = occurredAt
        self.notificationID = notificationID
        self.entity = entity
    }

    enum CodingKeys: String, CodingKey {
        case data
        case eventID = "event_id"
        case eventType = "event_type"
        case occurredAt = "occurred_at"
        case notificationID = "notification_id"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        eventID = try container.paddleID(.eventID)
        eventType = PaddleEventType(rawValue: try container.paddleText(.eventType, maximumBytes: 128))
        occurredAt = try container.paddleInstant(.occurredAt)
        notificationID = try container.paddleIDIfPresent(.notificationID)
        guard container.contains(.data) else { throw PaddleWireError(.missingField, container.fieldPath(.data)) }
        switch eventType.entityName {
        case "transaction": entity = .transaction(try container.decode(PaddleTransaction.self, forKey: .data))
        case "subscription": entity = .subscription(try container.decode(PaddleSubscription.self, forKey: .data))
        case "adjustment": entity = .adjustment(try container.decode(PaddleAdjustment.self, forKey: .data))
        default: entity = .other
        }
    }

    /// The subscription the event is about, when it names one: a subscription's own id, or the one a transaction
    /// or an adjustment belongs to.
    public var subscriptionID: String? {
        switch entity {
        case .subscription(let subscription): subscription.id
        case .transaction(let transaction): transaction.subscriptionID
        case .adjustment(let adjustment): adjustment.subscriptionID
        case .other: nil
        }
    }

    /// The transaction the event is about, when it names one: a transaction's own id, or the one an adjustment
    /// adjusts.
    public var transactionID: String? {
        switch entity {
        case .transaction(let transaction): transaction.id
        case .adjustment(let adjustment): adjustment.transactionID
        case .subscription, .other: nil
        }
    }
}

/// A notification: the body Paddle posts to a notification setting's destination, an event with the notification's
/// id. Verify its `Paddle-Signature` (`PaddleWebhookSignature.verify`) over the raw body before reading it.
public struct PaddleNotification: Sendable, Hashable {
    /// `ntf_…`
    public var notificationID: String
    public var event: PaddleEvent

    /// Reads a notification's raw body; refuses one without a `notification_id`.
    public init(body: Data) throws(PaddleWireError) {
        let event = try PaddleDecoding.decode(PaddleEvent.self, from: body)
        guard let notificationID = event.notificationID else { throw PaddleWireError(.missingField, "notification_id") }
        self.notificationID = notificationID
        self.event = event
    }
}

/// An event type (`transaction.completed`): `entity.what_happened`. The ones SubLedger follows are named; any other is
/// kept as sent, and a caller ignores what it does not follow.
public struct PaddleEventType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// The entity before the first dot: `transaction`, `subscription`, `adjustment`, `customer`, …
    public var entityName: Substring { rawValue.prefix { $0 != "." } }

    public static let transactionCreated = PaddleEventType(rawValue: "transaction.created")
    public static let transactionReady = PaddleEventType(rawValue: "transaction.ready")
    public static let transactionUpdated = PaddleEventType(rawValue: "transaction.updated")
    public static let transactionBilled = PaddleEventType(rawValue: "transaction.billed")
    public static let transactionPaid = PaddleEventType(rawValue: "transaction.paid")
    public static let transactionCompleted = PaddleEventType(rawValue: "transaction.completed")
    public static let transactionPaymentFailed = PaddleEventType(rawValue: "transaction.payment_failed")
    public static let transactionPastDue = PaddleEventType(rawValue: "transaction.past_due")
    public static let transactionCanceled = PaddleEventType(rawValue: "transaction.canceled")
    public static let subscriptionCreated = PaddleEventType(rawValue: "subscription.created")
    public static let subscriptionTrialing = PaddleEventType(rawValue: "subscription.trialing")
    public static let subscriptionActivated = PaddleEventType(rawValue: "subscription.activated")
    public static let subscriptionUpdated = PaddleEventType(rawValue: "subscription.updated")
    public static let subscriptionPastDue = PaddleEventType(rawValue: "subscription.past_due")
    public static let subscriptionPaused = PaddleEventType(rawValue: "subscription.paused")
    public static let subscriptionResumed = PaddleEventType(rawValue: "subscription.resumed")
    public static let subscriptionCanceled = PaddleEventType(rawValue: "subscription.canceled")
    public static let adjustmentCreated = PaddleEventType(rawValue: "adjustment.created")
    public static let adjustmentUpdated = PaddleEventType(rawValue: "adjustment.updated")

    /// The types above: the ones the ledger follows.
    public static let followed: Set<PaddleEventType> = [
        .transactionCreated, .transactionReady, .transactionUpdated, .transactionBilled, .transactionPaid,
        .transactionCompleted, .transactionPaymentFailed, .transactionPastDue, .transactionCanceled,
        .subscriptionCreated, .subscriptionTrialing, .subscriptionActivated, .subscriptionUpdated,
        .subscriptionPastDue, .subscriptionPaused, .subscriptionResumed, .subscriptionCanceled, .adjustmentCreated,
        .adjustmentUpdated,
    ]

    /// Whether the ledger follows events of this type.
    public var isFollowed: Bool { Self.followed.contains(self) }
}
