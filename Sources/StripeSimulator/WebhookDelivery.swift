import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore

extension StripeWorld.State {
    /// A webhook endpoint: its signing secret is made here unless given, and shown only in the creation's answer.
    mutating func addEndpoint(url: String, events: [String], secret: String?, revealSecret: Bool) -> JSONValue {
        let id = newID("we_")
        let signing = secret ?? newID("whsec_")
        endpoints.append(
            .init(id: id, url: url, secret: signing, previousSecret: nil, enabledEvents: events, disabled: false))
        var endpoint: JSONValue = [
            "id": .string(id), "object": "webhook_endpoint", "url": .string(url), "status": "enabled",
            "enabled_events": .array(events.map(JSONValue.string)), "created": .int(now), "livemode": false,
            "api_version": .string(StripeWorld.apiVersion), "metadata": [:], "description": nil, "application": nil,
        ]
        insert(endpoint)
        if revealSecret { endpoint["secret"] = .string(signing) }
        return endpoint
    }

    mutating func removeEndpoint(_ id: String) throws(StripeFailure) -> JSONValue {
        _ = try object(id, kind: "webhook_endpoint")
        endpoints.removeAll { $0.id == id }
        objects[id] = nil
        idsByKind["webhook_endpoint"]?.removeAll { $0 == id }
        return ["id": .string(id), "object": "webhook_endpoint", "deleted": true]
    }

    /// A new signing secret for `id`; the old one is still signed with for `overlap` seconds (both `v1`s are sent).
    mutating func rollSecret(_ id: String, overlap: Int64) throws(StripeFailure) -> String {
        guard let index = endpoints.firstIndex(where: { $0.id == id }) else { throw .missing("webhook endpoint", id) }
        endpoints[index].previousSecret = endpoints[index].secret
        endpoints[index].previousExpiresAt = now + overlap
        endpoints[index].secret = newID("whsec_")
        return endpoints[index].secret
    }

    /// The deliveries due now, each with its event's body, endpoint and secrets; armed drops are taken here.
    mutating func dueDeliveries() -> [(index: Int, url: String, body: Data, secrets: [String], copies: Int)] {
        var due: [(Int, String, Data, [String], Int)] = []
        for index in deliveries.indices
        where !deliveries[index].delivered && !deliveries[index].dropped
            && !deliveries[index].inFlight && deliveries[index].nextAttemptAt <= now
            && deliveries[index].attempts < StripeWorld.maximumAttempts
        {
            guard let endpoint = endpoints.first(where: { $0.id == deliveries[index].endpointID }),
                let event = objects[deliveries[index].eventID]
            else { continue }
            if faults.dropWebhooks > 0, deliveries[index].attempts == 0 {
                faults.dropWebhooks -= 1
                deliveries[index].dropped = true
                continue
            }
            var copies = 1
            if faults.duplicateWebhooks > 0, deliveries[index].attempts == 0 {
                faults.duplicateWebhooks -= 1
                copies = 2
            }
            var secrets = [endpoint.secret]
            if let previous = endpoint.previousSecret, (endpoint.previousExpiresAt ?? 0) > now {
                secrets.append(previous)
            }
            deliveries[index].inFlight = true
            due.append((index, endpoint.url, APIResponder.rendered(event).data, secrets, copies))
        }
        return due
    }

    /// Records an attempt: delivered on a 2xx, else retried on Stripe's schedule (an hour, then doubling).
    mutating func record(_ index: Int, status: Int?) {
        guard deliveries.indices.contains(index) else { return }
        deliveries[index].attempts += 1
        deliveries[index].inFlight = false
        deliveries[index].lastStatus = status
        if let status, (200..<300).contains(status) {
            deliveries[index].delivered = true
            let eventID = deliveries[index].eventID
            update(eventID) { event in
                event["pending_webhooks"] = .int(max(0, (event["pending_webhooks"]?.int ?? 1) - 1))
            }
        } else {
            let backoff = Int64(3600) << min(deliveries[index].attempts - 1, 6)
            deliveries[index].nextAttemptAt = now + backoff
        }
    }
}

extension StripeWorld {
    /// Attempts a delivery at most this many times (Stripe retries a test-mode event a few times over hours, a
    /// live one for three days).
    static let maximumAttempts = 8

    /// Sends every delivery due and not taken by another sender, one at a time in the order the events happened,
    /// signed as Stripe signs:
    /// `Stripe-Signature: t=<wall clock seconds>,v1=<HMAC-SHA256 of "t.body">` per live secret.
    func deliverDue(client: HTTPClient, timeout: Duration, wallClock: @Sendable () -> Int64, logger: Logger) async {
        while true {
            let due = state.withLock { $0.dueDeliveries() }
            guard !due.isEmpty else { return }
            for delivery in due {
                var status: Int?
                for _ in 0..<delivery.copies {
                    status = await Self.post(
                        delivery.body, to: delivery.url, secrets: delivery.secrets, client: client, timeout: timeout,
                        timestamp: wallClock(), logger: logger)
                }
                state.withLock { $0.record(delivery.index, status: status) }
            }
        }
    }

    static func signature(_ body: Data, secrets: [String], timestamp: Int64) -> String {
        var signed = Data("\(timestamp).".utf8)
        signed.append(body)
        let parts = secrets.map { secret in
            "v1="
                + HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data(secret.utf8)))
                .map { String(format: "%02x", $0) }.joined()
        }
        return (["t=\(timestamp)"] + parts).joined(separator: ",")
    }

    private static func post(
        _ body: Data, to url: String, secrets: [String], client: HTTPClient, timeout: Duration, timestamp: Int64,
        logger: Logger
    ) async -> Int? {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        request.headers.add(name: "User-Agent", value: "Stripe/1.0 (+https://stripe.com/docs/webhooks)")
        request.headers.add(name: "Stripe-Signature", value: signature(body, secrets: secrets, timestamp: timestamp))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(
                request, timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000))
            _ = try? await response.body.collect(upTo: 1 << 20)
            return Int(response.status.code)
        } catch {
            logger.debug("stripe-sim webhook delivery failed", metadata: ["url": "\(url)", "error": "\(error)"])
            return nil
        }
    }
}
