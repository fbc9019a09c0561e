import Foundation
import Synchronization

/// Everything paddle-sim knows: the entities as Paddle renders them, the simulated clock, the notification
/// settings with their secrets, the notifications waiting to be sent, and what the control routes arm.
final class PaddleWorld: Sendable {
    let state: Mutex<State>

    init(now: Int64, seed: UInt64, apiKey: String, taxBasisPoints: Int64) {
        state = Mutex(State(now: now, seed: seed, apiKey: apiKey, taxBasisPoints: taxBasisPoints))
    }

    /// Paddle's webhook events the simulator sends, with the group Paddle files each under.
    static let eventTypes: [(name: String, group: String)] = [
        ("transaction.created", "Transaction"), ("transaction.ready", "Transaction"),
        ("transaction.updated", "Transaction"), ("transaction.billed", "Transaction"),
        ("transaction.paid", "Transaction"), ("transaction.completed", "Transaction"),
        ("transaction.payment_failed", "Transaction"), ("transaction.past_due", "Transaction"),
        ("transaction.canceled", "Transaction"),
        ("subscription.created", "Subscription"), ("subscription.trialing", "Subscription"),
        ("subscription.activated", "Subscription"), ("subscription.updated", "Subscription"),
        ("subscription.past_due", "Subscription"), ("subscription.paused", "Subscription"),
        ("subscription.resumed", "Subscription"), ("subscription.canceled", "Subscription"),
        ("adjustment.created", "Adjustment"), ("adjustment.updated", "Adjustment"),
        ("customer.created", "Customer"), ("customer.updated", "Customer"),
        ("product.created", "Product"), ("price.created", "Price"),
    ]

    struct State {
        var now: Int64
        let seed: UInt64
        let apiKey: String
        /// The tax rate on every sale, in hundredths of a percent (1000 = 10%): Paddle, as merchant of record,
        /// works it out from the customer's address, which the simulator does not model.
        var taxBasisPoints: Int64
        /// `http://host:port`, for the URLs Paddle writes into answers (`meta.pagination.next`, `checkout.url`).
        var baseURL = "http://127.0.0.1"
        var counter: UInt64 = 0
        var objects: [String: PaddleJSON] = [:]
        /// Each kind's ids in creation order, which is also their sort order (`newID`).
        var idsByKind: [String: [String]] = [:]
        /// Customers whose payments fail until told otherwise (`/control/customers/{id}/payments`).
        var decliningCustomers: Set<String> = []
        var settings: [NotificationSetting] = []
        var notifications: [NotificationRecord] = []
        /// Past-due subscriptions: the unpaid transaction and when the next retry is.
        var dunning: [String: Dunning] = [:]
        /// Refunds waiting for Paddle's approval, and when the simulated Paddle approves each.
        var refundApprovals: [String: Int64] = [:]
        /// The seller's payout currency; `nil`: each sale is paid out in its own (`Configuration.payoutCurrency`).
        var payoutCurrency: String?
        /// Rates into `payoutCurrency` in millionths, by sale currency.
        var payoutRates: [String: Int64] = [:]

        init(now: Int64, seed: UInt64, apiKey: String, taxBasisPoints: Int64) {
            self.now = now
            self.seed = seed
            self.apiKey = apiKey
            self.taxBasisPoints = taxBasisPoints
        }
    }

    struct NotificationSetting {
        var id: String
        var destination: String
        var secretKey: String
        var events: Set<String>
        var active: Bool
    }

    struct NotificationRecord {
        var id: String
        var settingID: String
        var eventID: String
        var attempts = 0
        var nextAttemptAt: Int64
        var inFlight = false
        var delivered = false
        var failed = false
        var replay = false
        /// When it was made: for a replay, when it was asked for.
        var createdAt: Int64 = 0
        var lastAttemptAt: Int64?
        var deliveredAt: Int64?

        init(id: String, settingID: String, eventID: String, nextAttemptAt: Int64, replay: Bool = false) {
            self.id = id
            self.settingID = settingID
            self.eventID = eventID
            self.nextAttemptAt = nextAttemptAt
            self.replay = replay
            self.createdAt = nextAttemptAt
        }
    }

    struct Dunning {
        var transactionID: String
        var attempts: Int
        var nextRetryAt: Int64
    }
}

extension PaddleWorld.State {
    static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")

    /// A Paddle id: the prefix and 26 lowercase characters, growing with each id made so that ids sort in
    /// creation order (Paddle's lists are ordered by id, and `after` is an id).
    mutating func newID(_ prefix: String) -> String {
        counter &+= 1
        var mixed = (counter &+ seed) &* 0x9E37_79B9_7F4A_7C15
        mixed ^= mixed >> 29
        var text = "01"
        for shift in stride(from: 55, through: 0, by: -5) {
            text.append(Self.alphabet[Int((counter >> UInt64(shift)) & 31)])
        }
        for shift in stride(from: 55, through: 0, by: -5) {
            text.append(Self.alphabet[Int((mixed >> UInt64(shift)) & 31)])
        }
        return prefix + text
    }

    /// A UUID-shaped id (request ids, payment attempts), from the same counter.
    mutating func newUUID() -> String {
        counter &+= 1
        let high = (counter &+ seed) &* 0x9E37_79B9_7F4A_7C15
        let low = counter
        let hex = String(format: "%016llx%016llx", high, low)
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }

    var nowText: PaddleJSON { .string(PaddleCalendar.format(now)) }

    mutating func insert(_ object: PaddleJSON, kind: String, id: String? = nil) {
        guard let id = id ?? object["id"]?.string else { return }
        objects[id] = object
        idsByKind[kind, default: []].append(id)
    }

    func object(_ id: String, prefix: String) throws(PaddleFailure) -> PaddleJSON {
        // Each kind has its own prefix, so the prefix alone tells an id's kind.
        guard id.hasPrefix(prefix), id.count <= 64, let object = objects[id] else { throw .notFound(id) }
        return object
    }

    mutating func update(_ id: String, stamp: Bool = true, _ change: (inout PaddleJSON) -> Void) {
        guard var object = objects[id] else { return }
        change(&object)
        if stamp, object["updated_at"] != nil { object["updated_at"] = nowText }
        objects[id] = object
    }

    /// Records an event with a copy of `data` as it is now, and a notification for each active setting that
    /// subscribes to its type.
    mutating func emit(_ type: String, _ data: PaddleJSON) {
        let eventID = newID("evt_")
        insert(
            ["event_id": .string(eventID), "event_type": .string(type), "occurred_at": nowText, "data": data],
            kind: "event", id: eventID)
        for setting in settings where setting.active && setting.events.contains(type) {
            notifications.append(
                .init(id: newID("ntf_"), settingID: setting.id, eventID: eventID, nextAttemptAt: now))
        }
    }

    mutating func emit(_ type: String, id: String) {
        if let object = objects[id] { emit(type, object) }
    }
}
