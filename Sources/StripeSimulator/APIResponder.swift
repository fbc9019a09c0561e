import Foundation

/// One answer of stripe-sim: a status and a JSON body.
struct SimAnswer: Sendable {
    var status: Int
    var body: JSONValue

    static func failure(_ failure: StripeFailure) -> SimAnswer { SimAnswer(status: failure.status, body: failure.body) }
}

/// Stripe's API as stripe-sim answers it: authentication by the secret key, form-encoded parameters, Stripe's
/// objects and lists, its error object, `Idempotency-Key`, and the faults armed through the control API.
struct APIResponder: Sendable {
    let world: StripeWorld

    /// The collections a `GET /v1/{collection}` lists, by object kind, with the filters each takes.
    static let collections: [String: (kind: String, filters: [String])] = [
        "customers": ("customer", ["email"]),
        "products": ("product", ["active"]),
        "prices": ("price", ["product", "lookup_keys", "active"]),
        "subscriptions": ("subscription", ["customer", "status", "price"]),
        "invoices": ("invoice", ["customer", "subscription", "status"]),
        "invoice_payments": ("invoice_payment", ["invoice", "status", "payment"]),
        "payment_intents": ("payment_intent", ["customer"]),
        "charges": ("charge", ["customer", "payment_intent"]),
        "refunds": ("refund", ["charge", "payment_intent"]),
        "disputes": ("dispute", ["charge", "payment_intent"]),
        "balance_transactions": ("balance_transaction", ["source", "type"]),
        "events": ("event", ["type", "types", "created"]),
        "checkout/sessions": ("checkout.session", ["customer", "subscription", "payment_intent", "status"]),
        "webhook_endpoints": ("webhook_endpoint", []),
        "test_helpers/test_clocks": ("test_helpers.test_clock", []),
    ]

    static let singular: [String: String] = [
        "customer": "customer", "product": "product", "price": "price", "subscription": "subscription",
        "invoice": "invoice", "invoice_payment": "invoice_payment", "payment_intent": "payment_intent",
        "charge": "charge", "refund": "refund", "dispute": "dispute", "balance_transaction": "balance_transaction",
        "event": "event", "checkout.session": "checkout session", "webhook_endpoint": "webhook endpoint",
        "test_helpers.test_clock": "test clock",
    ]

    func respond(
        method: String, path: String, query: String, body: String, authorization: String?, idempotencyKey: String?
    )
        -> SimAnswer
    {
        guard authorized(authorization) else {
            return SimAnswer(
                status: 401,
                body: [
                    "error": [
                        "type": "invalid_request_error",
                        "message": "Invalid API Key provided. stripe-sim accepts its configured secret key.",
                    ]
                ])
        }
        if let status = world.state.withLock({ state -> Int? in
            state.faults.apiFailures.isEmpty ? nil : state.faults.apiFailures.removeFirst()
        }) {
            let type = status == 429 ? "rate_limit_error" : "api_error"
            return SimAnswer(
                status: status,
                body: [
                    "error": ["type": .string(type), "message": .string("stripe-sim: an injected fault (\(status)).")]
                ])
        }
        guard let form = FormParameters(method == "GET" || method == "DELETE" ? query : body) else {
            return .failure(.invalid("The parameters could not be parsed."))
        }
        if method == "POST", let key = idempotencyKey {
            if let stored = world.state.withLock({ $0.idempotency[key] }) {
                return SimAnswer(status: stored.status, body: stored.body)
            }
            let answer = route(method: method, path: path, form: form)
            world.state.withLock { $0.idempotency[key] = (answer.status, answer.body) }
            return answer
        }
        return route(method: method, path: path, form: form)
    }

    private func authorized(_ authorization: String?) -> Bool {
        guard let authorization else { return false }
        if authorization.hasPrefix("Bearer ") { return authorization.dropFirst(7) == world.secretKey }
        if authorization.hasPrefix("Basic "),
            let decoded = Data(base64Encoded: String(authorization.dropFirst(6))).map({
                String(decoding: $0, as: UTF8.self)
            })
        {
            return decoded.split(separator: ":", maxSplits: 1).first.map(String.init) == world.secretKey
        }
        return false
    }

    private func route(method: String, path: String, form: FormParameters) -> SimAnswer {
        guard path.hasPrefix("/v1/") else { return .failure(.missing("route", path)) }
        let parts = path.dropFirst(4).split(separator: "/").map(String.init)
        let baseURL = world.baseURL.withLock { $0 }
        do throws(StripeFailure) {
            let resource = parts.first ?? ""
            let id = parts.count == 2 ? parts[1] : nil
            switch method {
            case "POST" where parts == ["customers"]:
                return ok(
                    try world.state.withLock { state throws(StripeFailure) in
                        let clock = form.string("test_clock")
                        if let clock { _ = try state.object(clock, kind: StripeWorld.State.testClockKind) }
                        return state.createCustomer(
                            email: form.string("email"), metadata: form.metadata(form["metadata"]), testClock: clock)
                    })
            case "POST" where parts == ["test_helpers", "test_clocks"]:
                return ok(try world.state.withLock { state throws(StripeFailure) in try state.createTestClock(form) })
            case "POST"
            where parts.count == 4 && parts[0] == "test_helpers" && parts[1] == "test_clocks"
                && parts[3] == "advance":
                return ok(
                    try world.state.withLock { state throws(StripeFailure) in
                        try state.advanceTestClock(parts[2], form)
                    })
            case "DELETE" where parts.count == 3 && parts[0] == "test_helpers" && parts[1] == "test_clocks":
                return ok(
                    try world.state.withLock { state throws(StripeFailure) in try state.deleteTestClock(parts[2]) })
            case "GET" where parts.count == 3 && parts[0] == "test_helpers" && parts[1] == "test_clocks":
                return ok(try retrieve(collection: "test_helpers/test_clocks", id: parts[2]))
            case "POST" where parts == ["products"]:
                guard let name = form.string("name") else {
                    throw .invalid("Missing required param: name.", param: "name")
                }
                return ok(
                    try world.state.withLock { state throws(StripeFailure) in
                        try state.createProduct(
                            name: name, id: form.string("id"), metadata: form.metadata(form["metadata"]))
                    })
            case "POST" where parts == ["prices"]:
                guard let product = form.string("product"), let currency = form.string("currency") else {
                    throw .invalid("Missing required param: product or currency.", param: "product")
                }
                guard let amount = form.string("unit_amount").flatMap({ Int64($0) }) else {
                    throw .invalid("Missing or invalid unit_amount.", param: "unit_amount")
                }
                return ok(
                    try world.state.withLock { state throws(StripeFailure) in
                        try state.createPrice(
                            product: product, unitAmount: amount, currency: currency, recurring: form["recurring"],
                            lookupKey: form.string("lookup_key"), metadata: form.metadata(form["metadata"]))
                    })
            case "POST" where parts == ["checkout", "sessions"]:
                return ok(
                    try world.state.withLock { state throws(StripeFailure) in
                        try state.createCheckoutSession(form, baseURL: baseURL)
                    })
            case "POST" where parts == ["subscriptions"]:
                guard let customer = form.string("customer"), let price = form.indexed("items").first?["price"]?.string
                else { throw .invalid("Missing required param: customer or items[0][price].", param: "items") }
                let trial = form.string("trial_period_days").flatMap { Int64($0) }
                return ok(
                    try world.state.withLock { state throws(StripeFailure) in
                        _ = try state.object(customer, kind: "customer")
                        let id = try state.startSubscription(
                            customer: customer, price: price, metadata: form.metadata(form["metadata"]),
                            trialDays: trial)
                        if form.string("cancel_at_period_end") == "true" {
                            _ = try state.updateSubscription(id, FormParameters("cancel_at_period_end=true")!)
                        }
                        return state.objects[id] ?? nil
                    })
            case "POST" where resource == "subscriptions" && id != nil:
                return ok(
                    try world.state.withLock { state throws(StripeFailure) in try state.updateSubscription(id!, form) })
            case "DELETE" where resource == "subscriptions" && id != nil:
                return ok(try world.state.withLock { state throws(StripeFailure) in try state.cancelSubscription(id!) })
            case "POST" where parts == ["refunds"]:
                return ok(try world.state.withLock { state throws(StripeFailure) in try state.createRefund(form) })
            case "POST" where parts == ["webhook_endpoints"]:
                guard let url = form.string("url") else { throw .invalid("Missing required param: url.", param: "url") }
                let events = (form["enabled_events"]?.array ?? form.indexed("enabled_events")).compactMap(\.string)
                return ok(
                    world.state.withLock {
                        $0.addEndpoint(
                            url: url, events: events.isEmpty ? ["*"] : events, secret: nil, revealSecret: true)
                    })
            case "DELETE" where resource == "webhook_endpoints" && id != nil:
                return ok(try world.state.withLock { state throws(StripeFailure) in try state.removeEndpoint(id!) })
            case "GET" where parts.count == 3 && resource == "checkout" && parts[1] == "sessions":
                return ok(try retrieve(collection: "checkout/sessions", id: parts[2]))
            case "GET" where parts.count == 2 && resource != "checkout" && resource != "test_helpers":
                let object = try retrieve(collection: resource, id: parts[1])
                return ok(expanded(object, expand: Self.expansions(form), prefix: ""))
            case "GET":
                let list = try list(collection: parts.joined(separator: "/"), form: form, path: path)
                return ok(expandedList(list, expand: Self.expansions(form)))
            default:
                throw .missing("route", path)
            }
        } catch {
            return .failure(error)
        }
    }

    static func expansions(_ form: FormParameters) -> Set<String> {
        Set((form["expand"]?.array ?? form.indexed("expand")).compactMap(\.string))
    }

    /// An invoice's includable `payments` (its invoice payments, newest first) when `expand` names it; a charge's
    /// `balance_transaction` object in place of its id when `expand` names it.
    private func expanded(_ object: JSONValue, expand: Set<String>, prefix: String) -> JSONValue {
        if object["object"]?.string == "charge", expand.contains(prefix + "balance_transaction"),
            let id = object["balance_transaction"]?.string
        {
            var object = object
            object["balance_transaction"] = world.state.withLock { $0.objects[id] } ?? .string(id)
            return object
        }
        guard object["object"]?.string == "invoice", expand.contains(prefix + "payments"),
            let id = object["id"]?.string
        else { return object }
        let payments = world.state.withLock { $0.newestFirst("invoice_payment") }.filter {
            $0["invoice"]?.string == id
        }
        var object = object
        object["payments"] = [
            "object": "list", "data": .array(Array(payments.prefix(10))), "has_more": .bool(payments.count > 10),
            "url": .string("/v1/invoice_payments?invoice=\(id)"),
        ]
        return object
    }

    private func expandedList(_ list: JSONValue, expand: Set<String>) -> JSONValue {
        guard let items = list["data"]?.array else { return list }
        var list = list
        list["data"] = .array(items.map { expanded($0, expand: expand, prefix: "data.") })
        return list
    }

    private func ok(_ object: JSONValue) -> SimAnswer { SimAnswer(status: 200, body: Self.rendered(object)) }

    /// What a client sees: stripe-sim's own bookkeeping fields (prefixed `_`) left out.
    static func rendered(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let fields):
            return .object(fields.filter { !$0.key.hasPrefix("_") }.mapValues(rendered))
        case .array(let items):
            return .array(items.map(rendered))
        default:
            return value
        }
    }

    private func retrieve(collection: String, id: String) throws(StripeFailure) -> JSONValue {
        guard let kind = Self.collections[collection]?.kind else { throw .missing("route", "/v1/\(collection)") }
        guard let object = world.state.withLock({ $0.objects[id] }), object["object"]?.string == kind else {
            throw .missing(Self.singular[kind] ?? kind, id)
        }
        return object
    }

    /// A list, newest first: `limit` (1 to 100, default 10) after `starting_after`, or the `limit` just before
    /// `ending_before`, with the collection's filters.
    private func list(collection: String, form: FormParameters, path: String) throws(StripeFailure) -> JSONValue {
        guard let (kind, filters) = Self.collections[collection] else { throw .missing("route", path) }
        let limitText = form.string("limit") ?? "10"
        guard let limit = Int(limitText), (1...100).contains(limit) else {
            throw .invalid("Invalid integer: limit must be between 1 and 100.", param: "limit")
        }
        for key in ["starting_after", "ending_before"] where form.string(key)?.isEmpty == true {
            throw .invalid("Invalid \(key).", param: key)
        }
        let items = world.state.withLock { $0.newestFirst(kind) }.filter { matches($0, form, filters) }
        var page: ArraySlice<JSONValue>
        var hasMore: Bool
        if let after = form.string("starting_after") {
            guard let index = items.firstIndex(where: { $0["id"]?.string == after }) else {
                throw .missing(Self.singular[kind] ?? kind, after, param: "starting_after")
            }
            let rest = items[(index + 1)...]
            page = rest.prefix(limit)
            hasMore = rest.count > limit
        } else if let before = form.string("ending_before") {
            guard let index = items.firstIndex(where: { $0["id"]?.string == before }) else {
                throw .missing(Self.singular[kind] ?? kind, before, param: "ending_before")
            }
            let newer = items[..<index]
            page = newer.suffix(limit)
            hasMore = newer.count > limit
        } else {
            page = items.prefix(limit)
            hasMore = items.count > limit
        }
        return [
            "object": "list", "data": .array(Array(page)), "has_more": .bool(hasMore),
            "url": .string("/v1/" + collection),
        ]
    }

    private func matches(_ object: JSONValue, _ form: FormParameters, _ filters: [String]) -> Bool {
        for filter in filters {
            guard let wanted = form[filter] else { continue }
            switch filter {
            case "subscription" where object["object"]?.string == "invoice":
                guard object["parent"]?["subscription_details"]?["subscription"]?.string == wanted.string else {
                    return false
                }
            case "payment":
                if let intent = wanted["payment_intent"]?.string,
                    object["payment"]?["payment_intent"]?.string != intent
                {
                    return false
                }
            case "price":
                guard
                    object["items"]?["data"]?.array?.contains(where: { $0["price"]?["id"]?.string == wanted.string })
                        == true
                else { return false }
            case "types":
                let types = (wanted.array ?? []).compactMap(\.string)
                guard types.isEmpty || types.contains(object["type"]?.string ?? "") else { return false }
            case "created":
                guard let created = object["created"]?.int else { return false }
                if let exact = wanted.string.flatMap({ Int64($0) }), created != exact { return false }
                for (key, compare) in [
                    ("gt", { $0 > $1 }), ("gte", { $0 >= $1 }), ("lt", { $0 < $1 }), ("lte", { $0 <= $1 }),
                ]
                    as [(String, (Int64, Int64) -> Bool)]
                {
                    if let bound = wanted[key]?.string.flatMap({ Int64($0) }), !compare(created, bound) { return false }
                }
            case "lookup_keys":
                let keys = (wanted.array ?? []).compactMap(\.string)
                guard keys.contains(object["lookup_key"]?.string ?? "") else { return false }
            default:
                guard let text = wanted.string else { continue }
                let field = object[filter]
                if let bool = field?.bool {
                    guard String(bool) == text else { return false }
                } else if field?.id != text {
                    return false
                }
            }
        }
        return true
    }
}
