import Foundation

/// One answer of the simulated API: an HTTP status and a JSON body.
struct PaddleAnswer: Sendable {
    var status: Int
    var body: PaddleJSON
}

/// Paddle Billing's API v1 over the world: routes a method and path to an operation, checks the API key, and wraps
/// what it returns as Paddle does (`{"data", "meta": {"request_id", "pagination"?}}`) or refuses in Paddle's
/// error shape.
struct APIResponder: Sendable {
    let world: PaddleWorld

    /// The filters each list accepts, by query parameter, and the entity field each one matches.
    static let filters: [String: [String: String]] = [
        "product": ["id": "id", "status": "status", "type": "type", "tax_category": "tax_category"],
        "price": ["id": "id", "status": "status", "product_id": "product_id", "type": "type"],
        "customer": ["id": "id", "status": "status", "email": "email"],
        "transaction": [
            "id": "id", "status": "status", "customer_id": "customer_id", "subscription_id": "subscription_id",
            "origin": "origin", "collection_mode": "collection_mode",
        ],
        "subscription": [
            "id": "id", "status": "status", "customer_id": "customer_id", "collection_mode": "collection_mode",
        ],
        "adjustment": [
            "id": "id", "status": "status", "customer_id": "customer_id", "transaction_id": "transaction_id",
            "subscription_id": "subscription_id", "action": "action",
        ],
        "event": ["event_type": "event_type"],
        "notification_setting": ["active": "active"],
        "notification": ["notification_setting_id": "notification_setting_id", "status": "status"],
    ]

    func respond(method: String, path: String, query: String, body: String, authorization: String?) -> PaddleAnswer {
        world.state.withLock { state in
            let requestID = state.newUUID()
            do {
                try Self.authenticate(authorization, key: state.apiKey)
                let parameters = try Self.parameters(query)
                let fields = try Self.fields(body, method: method)
                let (data, pagination) = try route(
                    method: method, path: path, parameters: parameters, body: fields, state: &state)
                var meta: PaddleJSON = ["request_id": .string(requestID)]
                if let pagination { meta["pagination"] = pagination }
                return PaddleAnswer(
                    status: method == "POST" && Self.creates(path) ? 201 : 200, body: ["data": data, "meta": meta])
            } catch let failure as PaddleFailure {
                return PaddleAnswer(status: failure.status, body: failure.body(requestID: requestID))
            } catch {
                let failure = PaddleFailure(status: 500, code: "internal_error", detail: "Internal error.")
                return PaddleAnswer(status: 500, body: failure.body(requestID: requestID))
            }
        }
    }

    static func creates(_ path: String) -> Bool {
        ["/products", "/prices", "/customers", "/transactions", "/adjustments", "/notification-settings"].contains(path)
    }

    static func authenticate(_ header: String?, key: String) throws(PaddleFailure) {
        guard let header, !header.isEmpty else { throw .authenticationMissing }
        guard header.hasPrefix("Bearer "), header.count > 7, header.count <= 512 else { throw .authenticationMalformed }
        guard header.dropFirst(7) == key[...] else { throw .forbidden }
    }

    static func parameters(_ query: String) throws(PaddleFailure) -> [String: String] {
        guard query.utf8.count <= 8192 else { throw .badRequest("The query string is too long.") }
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            parameters[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return parameters
    }

    static func fields(_ body: String, method: String) throws(PaddleFailure) -> RequestFields {
        guard method == "POST" || method == "PATCH", !body.isEmpty else { return RequestFields(.object([:])) }
        guard let any = try? JSONSerialization.jsonObject(with: Data(body.utf8)), let json = PaddleJSON(any: any),
            json.object != nil
        else { throw .badRequest("Invalid request: the body is not a JSON object.") }
        return RequestFields(json)
    }

    func route(
        method: String, path: String, parameters: [String: String], body: RequestFields,
        state: inout PaddleWorld.State
    ) throws(PaddleFailure) -> (PaddleJSON, PaddleJSON?) {
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count <= 3, parts.allSatisfy({ $0.count <= 64 }) else { throw .invalidURL(path) }
        let collections: [String: (kind: String, prefix: String)] = [
            "products": ("product", "pro_"), "prices": ("price", "pri_"), "customers": ("customer", "ctm_"),
            "transactions": ("transaction", "txn_"), "subscriptions": ("subscription", "sub_"),
            "adjustments": ("adjustment", "adj_"), "events": ("event", "evt_"),
            "notification-settings": ("notification_setting", "ntfset_"), "notifications": ("notification", "ntf_"),
        ]
        switch (method, parts.count) {
        case ("GET", 1) where parts[0] == "event-types":
            let types: PaddleJSON = .array(
                PaddleWorld.eventTypes.map {
                    [
                        "name": .string($0.name), "group": .string($0.group), "description": .string($0.name),
                        "available_versions": [1],
                    ]
                })
            return (types, nil)
        case ("GET", 1):
            guard let collection = collections[parts[0]] else { throw .invalidURL(path) }
            return try list(collection.kind, path: path, parameters: parameters, state: &state)
        case ("GET", 2):
            guard let collection = collections[parts[0]], collection.kind != "event" else { throw .invalidURL(path) }
            if collection.kind == "notification" {
                guard let record = state.notifications.first(where: { $0.id == parts[1] }) else {
                    throw .notFound(parts[1])
                }
                return (state.rendered(record), nil)
            }
            return (try state.object(parts[1], prefix: collection.prefix), nil)
        case ("POST", 1):
            switch parts[0] {
            case "products": return (try state.createProduct(body), nil)
            case "prices": return (try state.createPrice(body), nil)
            case "customers": return (try state.createCustomer(body), nil)
            case "transactions": return (try state.createTransaction(body), nil)
            case "adjustments": return (try state.createAdjustment(body), nil)
            case "notification-settings": return (try state.createSetting(body), nil)
            default: throw .invalidURL(path)
            }
        case ("PATCH", 2):
            switch parts[0] {
            case "products": return (try state.updateProduct(parts[1], body), nil)
            case "customers": return (try state.updateCustomer(parts[1], body), nil)
            case "subscriptions": return (try state.updateSubscription(parts[1], body), nil)
            case "notification-settings": return (try state.updateSetting(parts[1], body), nil)
            default: throw .invalidURL(path)
            }
        case ("DELETE", 2) where parts[0] == "notification-settings":
            try state.deleteSetting(parts[1])
            return (.null, nil)
        case ("POST", 3) where parts[0] == "subscriptions":
            switch parts[2] {
            case "pause": return (try state.pause(parts[1], body), nil)
            case "resume": return (try state.resume(parts[1], body), nil)
            case "cancel": return (try state.cancel(parts[1], body), nil)
            case "activate": return (try state.activate(parts[1]), nil)
            default: throw .invalidURL(path)
            }
        case ("POST", 3) where parts[0] == "notifications" && parts[2] == "replay":
            return (try state.replay(parts[1]), nil)
        default:
            throw .invalidURL(path)
        }
    }

    /// A list: filtered by the parameters Paddle accepts for it (comma-separated values), then paged by id.
    func list(_ kind: String, path: String, parameters: [String: String], state: inout PaddleWorld.State)
        throws(PaddleFailure) -> (PaddleJSON, PaddleJSON?)
    {
        let page = try PaddlePagination.read(parameters)
        if let order = parameters["order_by"], !["id[asc]", ""].contains(order.lowercased()) {
            throw .invalidField("order_by", "only id[ASC] is simulated")
        }
        let objects: [(String, PaddleJSON)]
        if kind == "notification" {
            objects = state.notifications.map { ($0.id, state.rendered($0)) }
        } else {
            objects = (state.idsByKind[kind] ?? []).compactMap { id in state.objects[id].map { (id, $0) } }
        }
        var matching = objects
        for (parameter, field) in Self.filters[kind] ?? [:] {
            guard let text = parameters[parameter], !text.isEmpty else { continue }
            let wanted = Set(text.split(separator: ",").prefix(200).map(String.init))
            matching = matching.filter { id, object in
                let value: String
                switch object[field] {
                case .string(let string)?: value = string
                case .bool(let flag)?: value = flag ? "true" : "false"
                default: value = field == "id" ? id : ""
                }
                return wanted.contains(value)
            }
        }
        let byID = Dictionary(matching, uniquingKeysWith: { first, _ in first })
        let (ids, hasMore, nextAfter) = page.page(of: matching.map(\.0))
        var next = "\(state.baseURL)\(path)?per_page=\(page.perPage)"
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) where !["after", "per_page"].contains(key) {
            next += "&\(key)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        }
        if let nextAfter { next += "&after=\(nextAfter)" }
        let pagination: PaddleJSON = [
            "per_page": .int(Int64(page.perPage)), "next": .string(next), "has_more": .bool(hasMore),
            "estimated_total": .int(Int64(matching.count)),
        ]
        return (.array(ids.compactMap { byID[$0] }), pagination)
    }
}
