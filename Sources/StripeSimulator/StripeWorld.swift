import Foundation
import SeededRandom
import Synchronization

/// Everything stripe-sim holds: Stripe's objects as JSON, the events they made, the webhook endpoints and the
/// deliveries owed to them, the customers' cards, the clock, the faults. One lock guards it; an operation changes
/// the world and returns, and the webhooks it owes are sent afterwards, outside the lock.
final class StripeWorld: Sendable {
    struct Endpoint: Sendable {
        var id: String
        var url: String
        var secret: String
        /// The secret before a roll, still signed with until `previousExpiresAt`.
        var previousSecret: String?
        var previousExpiresAt: Int64?
        var enabledEvents: [String]
        var disabled: Bool

        func listens(to type: String) -> Bool {
            !disabled && (enabledEvents.contains("*") || enabledEvents.contains(type))
        }
    }

    struct Delivery: Sendable {
        var eventID: String
        var endpointID: String
        var attempts: Int
        var nextAttemptAt: Int64
        var delivered: Bool
        var dropped: Bool
        /// Taken by a sender and not answered yet: no other sender takes it meanwhile.
        var inFlight = false
        var lastStatus: Int?
    }

    struct State: Sendable {
        var now: Int64
        var random: SplitMix64
        var objects: [String: JSONValue] = [:]
        /// The ids of each kind of object (its `object` field), in creation order: a list reads its own kind, not
        /// every object of the world.
        var idsByKind: [String: [String]] = [:]
        var events: [String] = []
        var endpoints: [Endpoint] = []
        var deliveries: [Delivery] = []
        /// Customers whose card declines.
        var decliningCards: Set<String> = []
        /// Past-due subscriptions' next payment retry, and how many retries are left.
        var retries: [String: (at: Int64, left: Int)] = [:]
        var faults = Faults()
        /// The tax Stripe Tax computes on every sale, set through the control API; `nil`: no tax.
        var automaticTax: AutomaticTax?
        var idempotency: [String: (status: Int, body: JSONValue)] = [:]
    }

    /// One tax rate Stripe Tax applies to every invoice and payment-mode Checkout Session: parts per million of the
    /// taxable amount, included in the price (`inclusive`, as VAT usually is) or added on top of it (`exclusive`).
    struct AutomaticTax: Sendable {
        var ratePPM: Int64
        var inclusive: Bool
        /// The `txr_…` the invoices' `total_taxes` name.
        var taxRateID: String
    }

    /// Faults armed through the control API.
    struct Faults: Sendable {
        /// The next API requests answered with this status (`500` api_error, `429` rate_limit), one each.
        var apiFailures: [Int] = []
        /// Webhook deliveries to drop (recorded, never sent); the events stay listed.
        var dropWebhooks = 0
        /// Webhook deliveries to send twice.
        var duplicateWebhooks = 0
    }

    let state: Mutex<State>
    let secretKey: String
    let baseURL: Mutex<String>

    init(now: Int64, seed: UInt64, secretKey: String) {
        state = Mutex(State(now: now, random: SplitMix64(seed: seed)))
        self.secretKey = secretKey
        baseURL = Mutex("")
    }

    static let apiVersion = "2025-03-31.basil"
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
}

extension StripeWorld.State {
    mutating func newID(_ prefix: String) -> String {
        var suffix = ""
        for _ in 0..<24 {
            suffix.append(StripeWorld.alphabet[Int(random.next() % UInt64(StripeWorld.alphabet.count))])
        }
        return prefix + suffix
    }

    /// Stores a new object under its `id`.
    mutating func insert(_ object: JSONValue) {
        guard let id = object["id"]?.string else { return }
        objects[id] = object
        if let kind = object["object"]?.string { idsByKind[kind, default: []].append(id) }
    }

    /// Records event `type` about `object` (a snapshot now), with the fields that changed; owes it to every
    /// endpoint listening.
    mutating func emit(_ type: String, _ object: JSONValue, previous: JSONValue? = nil) {
        let id = newID("evt_")
        let listening = endpoints.filter { $0.listens(to: type) }
        var data: JSONValue = ["object": object]
        if let previous { data["previous_attributes"] = previous }
        insert([
            "id": .string(id), "object": "event", "api_version": .string(StripeWorld.apiVersion), "created": .int(now),
            "data": data, "livemode": false, "pending_webhooks": .int(Int64(listening.count)),
            "request": ["id": nil, "idempotency_key": nil], "type": .string(type),
        ])
        events.append(id)
        for endpoint in listening {
            deliveries.append(
                .init(
                    eventID: id, endpointID: endpoint.id, attempts: 0, nextAttemptAt: now, delivered: false,
                    dropped: false))
        }
    }

    /// The objects of `kind`, newest first.
    func newestFirst(_ kind: String) -> [JSONValue] {
        (idsByKind[kind] ?? []).reversed().compactMap { objects[$0] }
    }

    /// Changes object `id` with `change`, emitting `type` with the fields that changed, when `type` is given.
    mutating func update(_ id: String, emitting type: String? = nil, _ change: (inout JSONValue) -> Void) {
        guard var object = objects[id] else { return }
        let before = object
        change(&object)
        objects[id] = object
        guard let type else { return }
        var previous: [String: JSONValue] = [:]
        if case .object(let old) = before, case .object(let new) = object {
            for (key, value) in old where new[key] != value { previous[key] = value }
        }
        emit(type, object, previous: .object(previous))
    }
}
