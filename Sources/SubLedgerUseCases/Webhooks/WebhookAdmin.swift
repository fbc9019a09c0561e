import Foundation
import SubLedgerCore
import SubLedgerStore

/// Managing webhook endpoints, the same for `subledger webhooks ...` and `/v1/admin/webhooks`: every input is
/// checked (`WebhookAdminInput`, `WebhookURLPolicy`) before anything is stored, and every refusal is a
/// `WebhookAdminError` with a code.
public struct WebhookAdmin: Sendable {
    public let store: WebhookEndpointStore
    let now: @Sendable () -> Instant

    public init(store: WebhookEndpointStore, now: @escaping @Sendable () -> Instant = { Instant.systemNow() }) {
        self.store = store
        self.now = now
    }

    /// What adding an endpoint or rotating its secret answers: the endpoint and its new secret, shown once.
    public struct WithSecret: Sendable, Hashable, Codable {
        public var endpoint: WebhookEndpoint
        public var secret: String
    }

    /// Adds an endpoint for the app `bundleID`; its signing secret is returned once and stored sealed.
    public func add(
        bundleID: String, url: String, description: String?, eventTypes: [String], environments: [String],
        allowPrivateNetwork: Bool
    ) async throws -> WithSecret {
        let bundleID = try WebhookAdminInput.bundleID(WebhookAdminInput.text(bundleID, "the bundle id"))
        let url = try WebhookAdminInput.text(url, "the URL")
        do {
            _ = try WebhookURLPolicy.check(url, allowPrivateNetwork: allowPrivateNetwork)
        } catch {
            throw WebhookAdminError(error)
        }
        let new = WebhookEndpointStore.NewEndpoint(
            bundleID: bundleID, url: url, description: try WebhookAdminInput.description(description),
            eventTypes: try WebhookAdminInput.eventTypes(eventTypes),
            environments: try WebhookAdminInput.environments(environments), allowPrivateNetwork: allowPrivateNetwork)
        let secret = WebhookSignature.generateSecret()
        guard let endpoint = try await store.add(new, endpointID: UUID(), secret: secret) else {
            throw WebhookAdminError(.unknownApp, "no app has the bundle id \(bundleID)")
        }
        return WithSecret(endpoint: endpoint, secret: secret)
    }

    /// The endpoints of one app (every app's when `nil`); removed ones only when asked.
    public func list(bundleID: String?, includingRemoved: Bool = false) async throws -> [WebhookEndpoint] {
        let bundleID = try bundleID.map { try WebhookAdminInput.bundleID(WebhookAdminInput.text($0, "the bundle id")) }
        return try await store.list(bundleID: bundleID, includingRemoved: includingRemoved)
    }

    /// One endpoint, removed or not.
    public func endpoint(_ rawID: String) async throws -> WebhookEndpoint {
        let id = try WebhookAdminInput.endpointID(rawID)
        guard let endpoint = try await store.endpoint(id: id) else { throw Self.unknown(id) }
        return endpoint
    }

    /// Gives the endpoint a new secret (returned once). The previous one keeps signing for
    /// `expirePreviousAfter` (`24h` by default; `0` stops it at once).
    public func rotateSecret(_ rawID: String, expirePreviousAfter: String?) async throws -> WithSecret {
        let id = try WebhookAdminInput.endpointID(rawID)
        let overlap =
            try expirePreviousAfter.map {
                try WebhookAdminInput.duration(
                    WebhookAdminInput.text($0, "the overlap"), "the previous secret's remaining life",
                    maximum: WebhookAdminInput.maximumRotationOverlapSeconds)
            } ?? WebhookAdminInput.defaultRotationOverlapSeconds
        let secret = WebhookSignature.generateSecret()
        let until = overlap == 0 ? nil : now().adding(milliseconds: Int64(overlap) * 1_000)
        guard try await store.rotateSecret(endpointID: id, newSecret: secret, previousValidUntil: until),
            let endpoint = try await store.endpoint(id: id)
        else { throw Self.unknown(id) }
        return WithSecret(endpoint: endpoint, secret: secret)
    }

    /// Pauses the endpoint by hand; its deliveries wait.
    public func pause(_ rawID: String) async throws -> WebhookEndpoint {
        try await change(rawID) { id in try await store.pause(endpointID: id) }
    }

    /// Resumes the endpoint; its backlog is delivered.
    public func resume(_ rawID: String) async throws -> WebhookEndpoint {
        try await change(rawID) { id in try await store.resume(endpointID: id) }
    }

    /// Removes the endpoint; its history stays.
    public func remove(_ rawID: String) async throws -> WebhookEndpoint {
        try await change(rawID) { id in try await store.remove(endpointID: id) }
    }

    /// What `test` queued.
    public struct TestQueued: Sendable, Hashable, Codable {
        public var eventID: String
        public var deliveryID: Int64
    }

    /// Sends the endpoint a `webhook.test` event (to it alone).
    public func test(_ rawID: String) async throws -> TestQueued {
        let endpoint = try await endpoint(rawID)
        guard endpoint.state != "removed" else { throw Self.unknown(endpoint.endpointID) }
        let eventID = UUID()
        let occurredAt = now()
        let environment = endpoint.environments.first ?? "Production"
        let body = Self.testBody(
            eventID: eventID, occurredAt: occurredAt, bundleID: endpoint.bundleID, environment: environment,
            endpointID: endpoint.endpointID)
        let event = WebhookEndpointStore.TestEvent(
            eventID: eventID, environment: environment, eventType: WebhookEventTypeNames.test, occurredAt: occurredAt,
            body: body)
        guard let delivery = try await store.insertTestEvent(event, endpointID: endpoint.endpointID) else {
            throw Self.unknown(endpoint.endpointID)
        }
        return TestQueued(eventID: eventID.uuidString.lowercased(), deliveryID: delivery)
    }

    /// The endpoint's recent deliveries with their attempts.
    public func deliveries(_ rawID: String, state: String?, limit: Int?) async throws -> [WebhookDeliveryListing] {
        let state = try WebhookAdminInput.deliveryState(state.map { try WebhookAdminInput.text($0, "the state") })
        let limit = try WebhookAdminInput.limit(limit)
        let endpoint = try await endpoint(rawID)
        return try await store.deliveries(endpointID: endpoint.endpointID, state: state, limit: limit)
    }

    /// What `replay` queued.
    public struct ReplayQueued: Sendable, Hashable, Codable {
        public var endpointID: String
        public var queued: Int
    }

    /// Queues the app's events written since `since` (until `until`) to the endpoint again, only the types
    /// given (when any) and what its filters let through; refused when more than
    /// `WebhookAdminInput.maximumReplay` match.
    public func replay(_ rawID: String, since: String, until: String?, eventTypes: [String]) async throws
        -> ReplayQueued
    {
        let id = try WebhookAdminInput.endpointID(rawID)
        let from = try WebhookAdminInput.instant(since, "--since")
        let to = try until.map { try WebhookAdminInput.instant($0, "--until") }
        if let to, to <= from {
            throw WebhookAdminError(.invalidDate, "--until must be later than --since")
        }
        let types = try WebhookAdminInput.eventTypes(eventTypes)
        switch try await store.replay(
            endpointID: id, since: from, until: to, eventTypes: types, maximum: WebhookAdminInput.maximumReplay)
        {
        case .unknownEndpoint:
            throw Self.unknown(id)
        case .tooMany(let matching, let maximum):
            throw WebhookAdminError(
                .replayTooLarge,
                "\(matching) events match, more than the \(maximum) one replay may queue; narrow it with --until or --type"
            )
        case .queued(let count):
            return ReplayQueued(endpointID: id, queued: count)
        }
    }

    // MARK: - Internals

    private func change(_ rawID: String, _ body: (String) async throws -> Bool) async throws -> WebhookEndpoint {
        let id = try WebhookAdminInput.endpointID(rawID)
        guard try await body(id), let endpoint = try await store.endpoint(id: id) else { throw Self.unknown(id) }
        return endpoint
    }

    static func unknown(_ id: String) -> WebhookAdminError {
        WebhookAdminError(.unknownEndpoint, "no webhook endpoint \(id) (or it was removed)")
    }

    /// The body of a `webhook.test` event: the event shape of docs/guides/webhooks.md, about no account.
    static func testBody(
        eventID: UUID, occurredAt: Instant, bundleID: String, environment: String, endpointID: String
    ) -> String {
        // The members in the order every other event has them (`WebhookEventBody`).
        EventJSON.object([
            .init("id", .string(eventID.uuidString.lowercased())),
            .init("type", .string(WebhookEventTypeNames.test)),
            .init("occurred_at", .time(occurredAt)),
            .init("app", .string(bundleID)),
            .init("environment", .string(environment)),
            .init("account_id", .null),
            .init("sequence", .null),
            .init("cause", .object([.init("kind", .string("test")), .init("id", .null)])),
            .init("data", .object([.init("endpoint_id", .string(endpointID))])),
            .init("entitlements", .array([])),
        ]).text
    }
}

extension WebhookAdmin {
    /// An endpoint as the admin routes answer it.
    public typealias Endpoint = WebhookEndpoint
    /// A delivery to an endpoint as `deliveries` lists it.
    public typealias DeliveryListing = WebhookDeliveryListing
}
