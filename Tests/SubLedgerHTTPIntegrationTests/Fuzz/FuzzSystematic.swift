import Foundation

/// The deterministic half of the campaign: every string member of every input gets NUL, invalid UTF-8 and a
/// very long value, every number member the limits of Int64 and beyond, and every query option and path
/// id NUL and invalid UTF-8. Random sampling finds the unexpected; this pass makes sure nothing is skipped.
enum FuzzSystematic {
    static let stringVariants: [(kind: String, make: @Sendable ([UInt8]) -> FuzzJSON)] = [
        ("NUL (\\u0000)", { .string($0 + [0] + Array("x".utf8)) }),
        ("invalid UTF-8 (raw 0xFF 0xFE)", { .string($0 + [0xFF, 0xFE]) }),
        ("10,000 characters", { _ in .text(String(repeating: "9", count: 10_000)) }),
    ]

    static let numberVariants: [(kind: String, value: FuzzJSON)] = [
        ("Int64.max", .number("9223372036854775807")),
        ("Int64.min", .number("-9223372036854775808")),
        ("Int64.max / 1000", .number("9223372036854775")),
        ("-(Int64.max / 1000)", .number("-9223372036854775")),
        ("beyond Int64", .number("92233720368547758070")),
        ("1e308", .number("1e308")),
        ("fraction", .number("1700000000000.5")),
    ]

    /// Variants of one member: strings (and numbers Apple sends as strings, V1's `*_ms`) and numbers.
    static func variants(of value: FuzzJSON, name: String) -> [(kind: String, value: FuzzJSON)] {
        switch value {
        case .string(let raw):
            var result = stringVariants.map { ($0.kind, $0.make(raw)) }
            if name.hasSuffix("_ms") || name.hasSuffix("_date") {
                result += [
                    ("Int64.max as text", .text("9223372036854775807")),
                    ("Int64.min as text", .text("-9223372036854775808")),
                    ("Int64.max / 1000 as text", .text("9223372036854775")),
                    ("year 10000 as text", .text("253402300800000")),
                ]
            }
            return result
        case .number: return numberVariants
        default: return []
        }
    }

    /// Every leaf of `seed` with each of its variants.
    static func mutations(of seed: FuzzJSON) -> [(kind: String, value: FuzzJSON)] {
        var result: [(kind: String, value: FuzzJSON)] = []
        for path in seed.paths {
            guard let value = seed.value(at: path[...]), !value.isContainer else { continue }
            for variant in variants(of: value, name: path.last?.name ?? "") {
                result.append(("\(path.dotted): \(variant.kind)", seed.replacing(path[...], with: variant.value)))
            }
        }
        return result
    }

    /// Requests for every input route.
    static func bodyRequests(_ corpus: FuzzCorpus, seed: UInt64) -> [FuzzRequest] {
        var random = FuzzRandom(seed: seed, stream: "systematic", index: 0)
        var requests: [FuzzRequest] = []
        func post(_ route: String, _ path: String, _ kind: String, _ body: FuzzJSON, key: String?) {
            requests.append(FuzzRoute.request(route, "every field: " + kind, path, body: body.bytes, key: key))
        }
        // Orders, receipts: the JSON members themselves.
        let order: FuzzJSON = .object([("account_id", .text("alice")), ("product_id", .text("pro.monthly"))])
        for (kind, body) in mutations(of: order) {
            post("POST /v1/orders", "/v1/orders", kind, body, key: corpus.keyOne)
        }
        let receipt: FuzzJSON = .object([
            ("account_id", .text("alice")), ("receipt_data", .text(corpus.validReceipt)),
            ("transaction_id", .text("1000")),
            ("order_id", .text(UUID().uuidString.lowercased())),
        ])
        for (kind, body) in mutations(of: receipt) {
            post("POST /v1/receipts", "/v1/receipts", kind, body, key: corpus.keyOne)
        }

        // Signed transactions: the request's members, then every member of the (validly signed) payload.
        let transaction = corpus.transactionPayload(&random)
        let submission: FuzzJSON = .object([
            ("account_id", .text("alice")), ("signed_transaction", .text(corpus.sign(transaction))),
        ])
        for (kind, body) in mutations(of: submission) {
            post("POST /v1/transactions", "/v1/transactions", kind, body, key: corpus.keyOne)
        }
        for (kind, payload) in mutations(of: transaction) {
            let body: FuzzJSON = .object([
                ("account_id", .text("alice")), ("signed_transaction", .text(corpus.sign(payload))),
            ])
            post("POST /v1/transactions", "/v1/transactions", "signed payload: " + kind, body, key: corpus.keyOne)
        }

        // V2 notifications: the notification's members (signed), its transaction's members (signed), and
        // the claims of a notification whose signature does not verify.
        let route = "POST /v1/notifications/appstore (V2)"
        let path = "/v1/notifications/appstore"
        let notification = corpus.notificationPayload(transaction: corpus.sign(transaction), renewal: nil, &random)
        for (kind, payload) in mutations(of: notification) {
            post(
                route, path, "signed payload: " + kind, .object([("signedPayload", .text(corpus.sign(payload)))]),
                key: nil)
        }
        for (kind, payload) in mutations(of: transaction) {
            let signed = corpus.sign(
                corpus.notificationPayload(transaction: corpus.sign(payload), renewal: nil, &random))
            post(
                route, path, "signedTransactionInfo payload: " + kind, .object([("signedPayload", .text(signed))]),
                key: nil)
        }
        let renewal = corpus.renewalPayload(original: "1000", &random)
        for (kind, payload) in mutations(of: renewal) {
            let signed = corpus.sign(
                corpus.notificationPayload(
                    transaction: corpus.sign(transaction), renewal: corpus.sign(payload), &random))
            post(
                route, path, "signedRenewalInfo payload: " + kind, .object([("signedPayload", .text(signed))]), key: nil
            )
        }
        for (kind, payload) in mutations(of: corpus.notificationPayload(transaction: nil, renewal: nil, &random)) {
            let parts = corpus.sign(payload).split(separator: ".").map(String.init)
            let unverified = parts[0] + "." + parts[1] + "." + String(parts[2].reversed())
            post(route, path, "unverified claims: " + kind, .object([("signedPayload", .text(unverified))]), key: nil)
        }

        // V1 notifications with the shared secret: every member, dates included.
        for (kind, body) in mutations(of: corpus.v1Notification(&random)) {
            post("POST /v1/notifications/appstore (V1)", path, kind, body, key: nil)
        }
        return requests
    }

    /// Requests for every read route: NUL and invalid UTF-8 in every path id and query option.
    static func readRequests(_ corpus: FuzzCorpus) -> [FuzzRequest] {
        let odd: [(kind: String, text: String)] = [
            ("NUL (%00)", "a%00b"), ("invalid UTF-8 (%FF%FE)", "a%FF%FEb"),
            ("10,000 characters", String(repeating: "9", count: 10_000)),
        ]
        var requests: [FuzzRequest] = []
        for resource in ["entitlements", "subscriptions", "transactions"] {
            for variant in odd {
                requests.append(
                    FuzzRequest(
                        route: "GET /v1/accounts/{id}/\(resource)",
                        inputClass: "every field: account id: \(variant.kind)",
                        method: "GET", target: Array("/v1/accounts/\(variant.text)/\(resource)".utf8),
                        headers: FuzzRoute.authorization(corpus.keyOne)))
                requests.append(
                    FuzzRequest(
                        route: "GET /v1/accounts/{id}/\(resource)", inputClass: "every field: at: \(variant.kind)",
                        method: "GET", target: Array("/v1/accounts/alice/\(resource)?at=\(variant.text)".utf8),
                        headers: FuzzRoute.authorization(corpus.keyOne)))
            }
        }
        for name in FuzzRoute.reportOptions.keys.sorted() {
            let id = name == "account" || name == "original" ? "/1000" : ""
            for option in (FuzzRoute.reportOptions[name] ?? []) + ["app", "environment", "format"] {
                for variant in odd {
                    requests.append(
                        FuzzRequest(
                            route: "GET /v1/admin/reports/\(name)",
                            inputClass: "every field: \(option): \(variant.kind)",
                            method: "GET",
                            target: Array("/v1/admin/reports/\(name)\(id)?\(option)=\(variant.text)".utf8),
                            headers: FuzzRoute.authorization(corpus.adminKey)))
                }
            }
            if !id.isEmpty {
                for variant in odd {
                    requests.append(
                        FuzzRequest(
                            route: "GET /v1/admin/reports/\(name)", inputClass: "every field: id: \(variant.kind)",
                            method: "GET", target: Array("/v1/admin/reports/\(name)/\(variant.text)".utf8),
                            headers: FuzzRoute.authorization(corpus.adminKey)))
                }
            }
        }
        let basic = "Basic " + Data("ops:\(corpus.adminKey)".utf8).base64EncodedString()
        for option in ["q", "app"] {
            for variant in odd {
                requests.append(
                    FuzzRequest(
                        route: "GET /admin", inputClass: "every field: \(option): \(variant.kind)", method: "GET",
                        target: Array("/admin?\(option)=\(variant.text)".utf8), headers: [("Authorization", basic)]))
            }
        }
        return requests
    }
}

extension FuzzTarget {
    /// Sends `requests` in order, checking each.
    func sendAll(_ requests: [FuzzRequest]) async throws {
        for request in requests {
            guard canContinue else { return }
            try await send(request)
        }
    }
}
