import Foundation
import Hummingbird
import NIOCore
import SubLedgerUseCases

/// `/v1/admin/webhooks`: the webhook endpoints of every app, behind an admin key, doing what
/// `subledger webhooks ...` does (`WebhookAdmin`). Refusals are `WebhookAdminError`s, answered by
/// `HTTPErrorMapping`; a secret appears only in the answers of `POST /v1/admin/webhooks` and `rotate-secret`.
struct WebhooksController: Sendable {
    let admin: WebhookAdmin

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.get("webhooks") { request, _ in try await list(request) }
        group.post("webhooks") { request, context in try await add(request, context) }
        group.get("webhooks/:id") { _, context in try Self.json(try await admin.endpoint(Self.id(context))) }
        group.delete("webhooks/:id") { _, context in try Self.json(try await admin.remove(Self.id(context))) }
        group.post("webhooks/:id/rotate-secret") { request, context in
            let body = try await Self.decode(Rotation.self, request, context)
            return try Self.json(
                try await admin.rotateSecret(Self.id(context), expirePreviousAfter: body.expirePreviousAfter))
        }
        group.post("webhooks/:id/pause") { _, context in try Self.json(try await admin.pause(Self.id(context))) }
        group.post("webhooks/:id/resume") { _, context in try Self.json(try await admin.resume(Self.id(context))) }
        group.post("webhooks/:id/test") { _, context in
            try Self.json(try await admin.test(Self.id(context)), status: .accepted)
        }
        group.get("webhooks/:id/deliveries") { request, context in try await deliveries(request, context) }
        group.post("webhooks/:id/replay") { request, context in
            let body = try await Self.decode(Replay.self, request, context)
            guard let since = body.since else { throw APIError.badRequest(.malformedJSON, "missing field 'since'") }
            return try Self.json(
                try await admin.replay(
                    Self.id(context), since: since, until: body.until, eventTypes: body.eventTypes ?? []),
                status: .accepted)
        }
    }

    struct NewEndpoint: JSONRequestBody {
        var bundleID: String
        var url: String
        var description: String?
        var eventTypes: [String]?
        var environments: [String]?
        var allowPrivateNetwork: Bool?

        enum CodingKeys: String, CodingKey {
            case bundleID = "bundle_id"
            case url, description
            case eventTypes = "event_types"
            case environments
            case allowPrivateNetwork = "allow_private_network"
        }
        static let fields: Set<String> = [
            "bundle_id", "url", "description", "event_types", "environments", "allow_private_network",
        ]
    }

    struct Rotation: JSONRequestBody {
        var expirePreviousAfter: String?
        enum CodingKeys: String, CodingKey { case expirePreviousAfter = "expire_previous_after" }
        static let fields: Set<String> = ["expire_previous_after"]
    }

    struct Replay: JSONRequestBody {
        var since: String?
        var until: String?
        var eventTypes: [String]?
        enum CodingKeys: String, CodingKey {
            case since, until
            case eventTypes = "event_types"
        }
        static let fields: Set<String> = ["since", "until", "event_types"]
    }

    struct Listing: Encodable {
        var endpoints: [WebhookAdmin.Endpoint]
    }

    struct Deliveries: Encodable {
        var deliveries: [WebhookAdmin.DeliveryListing]
    }

    private func add(_ request: Request, _ context: SubLedgerRequestContext) async throws -> Response {
        let body = try await Self.decode(NewEndpoint.self, request, context)
        let added = try await admin.add(
            bundleID: body.bundleID, url: body.url, description: body.description, eventTypes: body.eventTypes ?? [],
            environments: body.environments ?? [], allowPrivateNetwork: body.allowPrivateNetwork ?? false)
        return try Self.json(added, status: .created)
    }

    private func list(_ request: Request) async throws -> Response {
        var bundleID: String?
        var includingRemoved = false
        for (key, value) in request.uri.queryParameters {
            switch key {
            case "bundle_id": bundleID = String(value)
            case "include_removed":
                guard ["true", "false"].contains(value) else {
                    throw APIError.badRequest(.invalidParameter, "include_removed is true or false")
                }
                includingRemoved = value == "true"
            default: continue  // refused by `QueryParameterMiddleware`
            }
        }
        return try Self.json(
            Listing(endpoints: try await admin.list(bundleID: bundleID, includingRemoved: includingRemoved)))
    }

    private func deliveries(_ request: Request, _ context: SubLedgerRequestContext) async throws -> Response {
        var state: String?
        var limit: Int?
        for (key, value) in request.uri.queryParameters {
            switch key {
            case "state": state = String(value)
            case "limit":
                guard let number = Int(value) else {
                    throw WebhookAdminError(.invalidLimit, "the limit is a whole number")
                }
                limit = number
            default: continue  // refused by `QueryParameterMiddleware`
            }
        }
        return try Self.json(
            Deliveries(deliveries: try await admin.deliveries(Self.id(context), state: state, limit: limit)))
    }

    private static func id(_ context: SubLedgerRequestContext) throws -> String {
        try context.pathParameter("id") { WebhookAdminError(.invalidEndpointID, $0) }
    }

    /// The body as `T`; an empty body is `{}` (every field of these bodies but the new endpoint's is optional).
    private static func decode<T: JSONRequestBody>(
        _ type: T.Type, _ request: Request, _ context: SubLedgerRequestContext
    ) async throws -> T {
        try await request.decodeJSON(as: T.self, context: context, emptyIsObject: true)
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}
