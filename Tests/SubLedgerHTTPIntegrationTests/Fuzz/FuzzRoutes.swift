import Foundation

/// The routes a campaign covers, each a generator of random and mutated requests.
struct FuzzRoute: Sendable {
    var name: String
    var make: @Sendable (_ corpus: FuzzCorpus, _ random: inout FuzzRandom) -> FuzzRequest

    /// Every route that takes input: bodies (orders, receipts, transactions, notifications V2 and V1) and
    /// read routes (accounts, admin reports, the admin page).
    static let bodyRoutes: [FuzzRoute] = [orders, receipts, transactions, notificationsV2, notificationsV1]
    static let readRoutes: [FuzzRoute] = [accounts, adminReports, adminPage, adminLookups]

    // MARK: Bodies

    static let orders = FuzzRoute(name: "POST /v1/orders") { corpus, random in
        let seed: FuzzJSON = .object([
            ("account_id", .text(corpus.accountID(&random))),
            ("product_id", .text(random.pick(["pro.monthly", "coins.100", "two.monthly", "unknown"]))),
        ])
        return jsonRequest("/v1/orders", seed: seed, corpus: corpus, random: &random)
    }

    static let receipts = FuzzRoute(name: "POST /v1/receipts") { corpus, random in
        var members: [(key: String, value: FuzzJSON)] = [("account_id", .text(corpus.accountID(&random)))]
        var tokenClass: String?
        if random.chance(0.4) {
            let (kind, corrupted) = FuzzMutations.corruptToken(corpus.validReceipt, using: &random)
            tokenClass = "receipt_data: \(kind.replacingOccurrences(of: "token: ", with: ""))"
            members.append(("receipt_data", .text(corrupted)))
        } else {
            members.append(
                (
                    "receipt_data",
                    .text(
                        random.chance(0.5)
                            ? corpus.validReceipt : Data(random.bytes(random.int(1...300))).base64EncodedString())
                ))
        }
        if random.chance(0.5) { members.append(("transaction_id", .text(String(random.int(1...999_999))))) }
        if random.chance(0.3) { members.append(("order_id", .text(UUID().uuidString.lowercased()))) }
        if let tokenClass {
            return request(
                "POST /v1/receipts", tokenClass, "/v1/receipts", body: FuzzJSON.object(members).bytes,
                key: corpus.keyOne)
        }
        return jsonRequest("/v1/receipts", seed: .object(members), corpus: corpus, random: &random)
    }

    static let transactions = FuzzRoute(name: "POST /v1/transactions") { corpus, random in
        let (kind, token) = signedTransaction(corpus, &random)
        var members: [(key: String, value: FuzzJSON)] = [
            ("account_id", .text(corpus.accountID(&random))), ("signed_transaction", .text(token)),
        ]
        if random.chance(0.3) { members.append(("order_id", .text(UUID().uuidString.lowercased()))) }
        if let kind {
            return request(
                "POST /v1/transactions", kind, "/v1/transactions", body: FuzzJSON.object(members).bytes,
                key: corpus.keyOne)
        }
        return jsonRequest("/v1/transactions", seed: .object(members), corpus: corpus, random: &random)
    }

    static let notificationsV2 = FuzzRoute(name: "POST /v1/notifications/appstore (V2)") { corpus, random in
        let route = "POST /v1/notifications/appstore (V2)"
        let original = String(random.int(100_000...999_999))
        let renewal = random.chance(0.5) ? corpus.sign(corpus.renewalPayload(original: original, &random)) : nil
        var kind: String
        var signedPayload: String
        switch random.int(0...19) {
        case 0...5:
            // A validly signed notification carrying a mutated or corrupted transaction.
            var (transactionKind, transaction) = signedTransaction(corpus, &random)
            if transactionKind == nil {
                let (memberKind, mutated) = FuzzMutations.mutateMember(
                    of: corpus.transactionPayload(&random), using: &random)
                (transactionKind, transaction) = ("signed payload: \(memberKind)", corpus.sign(mutated))
            }
            kind = "signedTransactionInfo \(transactionKind ?? "")"
            signedPayload = corpus.sign(corpus.notificationPayload(transaction: transaction, renewal: renewal, &random))
        case 6...7:
            let (renewalKind, mutated) = FuzzMutations.mutateMember(
                of: corpus.renewalPayload(original: original, &random), using: &random)
            kind = "signedRenewalInfo signed payload: \(renewalKind)"
            let transaction = corpus.sign(corpus.transactionPayload(&random))
            signedPayload = corpus.sign(
                corpus.notificationPayload(transaction: transaction, renewal: corpus.sign(mutated), &random))
        case 8...14:
            // The notification's own members (validly signed): bundleId, dates, ids, types.
            let payload = corpus.notificationPayload(
                transaction: corpus.sign(corpus.transactionPayload(&random)), renewal: renewal, &random)
            let (payloadKind, mutated) = FuzzMutations.mutateMember(of: payload, using: &random)
            kind = "signed payload: \(payloadKind)"
            signedPayload = corpus.sign(mutated)
        case 15...16:
            let payload = corpus.notificationPayload(
                transaction: corpus.sign(corpus.transactionPayload(&random)), renewal: renewal, &random)
            let (tokenKind, corrupted) = FuzzMutations.corruptToken(corpus.sign(payload), using: &random)
            kind = "signedPayload \(tokenKind)"
            signedPayload = corrupted
        case 17:
            let payload = corpus.notificationPayload(
                transaction: corpus.sign(corpus.transactionPayload(&random)), renewal: renewal, &random)
            let (headerKind, header) = corpus.oddHeader(&random)
            kind = "signedPayload \(headerKind)"
            signedPayload = corpus.sign(payload, header: header)
        case 18:
            // Claims (bundleId, environment) under a signature that does not verify.
            let payload = corpus.notificationPayload(transaction: nil, renewal: nil, &random)
            let (payloadKind, mutated) = FuzzMutations.mutateMember(of: payload, using: &random)
            let parts = corpus.sign(mutated).split(separator: ".").map(String.init)
            kind = "unverified claims: \(payloadKind)"
            signedPayload =
                parts.count == 3
                ? parts[0] + "." + parts[1] + "." + String(parts[2].reversed()) : parts.joined(separator: ".")
        default:
            let payload = corpus.notificationPayload(
                transaction: corpus.sign(corpus.transactionPayload(&random)), renewal: renewal, &random)
            let (bodyKind, body) = FuzzMutations.wholeBody(of: payload.bytes, using: &random)
            kind = "signed payload bytes: \(bodyKind)"
            signedPayload = (try? corpus.signer.sign(payloadBytes: Data(body))) ?? ""
        }
        let body: FuzzJSON = .object([("signedPayload", .text(signedPayload))])
        if random.chance(0.15) {
            let (memberKind, mutated) = FuzzMutations.mutateMember(of: body, using: &random)
            return request(route, memberKind, "/v1/notifications/appstore", body: mutated.bytes, key: nil)
        }
        if random.chance(0.05) {
            let (bodyKind, raw) = FuzzMutations.wholeBody(of: body.bytes, using: &random)
            return request(route, bodyKind, "/v1/notifications/appstore", body: raw, key: nil)
        }
        return request(route, kind, "/v1/notifications/appstore", body: body.bytes, key: nil)
    }

    static let notificationsV1 = FuzzRoute(name: "POST /v1/notifications/appstore (V1)") { corpus, random in
        let route = "POST /v1/notifications/appstore (V1)"
        var body = corpus.v1Notification(&random)
        var kinds: [String] = []
        for _ in 0..<random.int(1...2) {
            let (kind, mutated) = FuzzMutations.mutateMember(of: body, using: &random)
            kinds.append(kind)
            body = mutated
        }
        if random.chance(0.1) {
            let (bodyKind, raw) = FuzzMutations.wholeBody(of: body.bytes, using: &random)
            return request(route, bodyKind, "/v1/notifications/appstore", body: raw, key: nil)
        }
        return request(route, kinds.joined(separator: " + "), "/v1/notifications/appstore", body: body.bytes, key: nil)
    }

    /// A signed transaction: valid, with a mutated (validly signed) payload, or a corrupted token.
    static func signedTransaction(_ corpus: FuzzCorpus, _ random: inout FuzzRandom) -> (kind: String?, token: String) {
        let payload = corpus.transactionPayload(&random)
        switch random.int(0...9) {
        case 0, 1, 2, 3:
            let (kind, mutated) = FuzzMutations.mutateMember(of: payload, using: &random)
            return ("signed payload: \(kind)", corpus.sign(mutated))
        case 4, 5:
            let (kind, token) = FuzzMutations.corruptToken(corpus.sign(payload), using: &random)
            return (kind, token)
        case 6:
            let (kind, header) = corpus.oddHeader(&random)
            return (kind, corpus.sign(payload, header: header))
        case 7:
            if let sim = corpus.simSignedTransaction, random.chance(0.5) {
                let (kind, token) = FuzzMutations.corruptToken(sim, using: &random)
                return ("appstore-sim \(kind)", token)
            }
            let (kind, body) = FuzzMutations.wholeBody(of: payload.bytes, using: &random)
            return ("signed payload bytes: \(kind)", (try? corpus.signer.sign(payloadBytes: Data(body))) ?? "")
        default:
            return (nil, corpus.sign(payload))
        }
    }

    // MARK: Reads

    static let accounts = FuzzRoute(name: "GET /v1/accounts/{id}/*") { corpus, random in
        let resource = random.pick(["entitlements", "subscriptions", "transactions"])
        let (idKind, id) = oddIdentifier(&random)
        var target = "/v1/accounts/\(id)/\(resource)"
        var kinds = ["account id: \(idKind)"]
        if random.chance(0.5) {
            let (atKind, at) = oddDate(&random)
            target += "?at=\(at)"
            kinds.append("at: \(atKind)")
        }
        if random.chance(0.1) { target += random.pick(["&at=1", "?limit=-1", "&&", "?%00=1", "?at"]) }
        let key =
            random.chance(0.9) ? corpus.keyOne : random.pick([corpus.keyTwo, corpus.adminKey, "sl_app_bogus", ""])
        return FuzzRequest(
            route: "GET /v1/accounts/{id}/\(resource)", inputClass: kinds.joined(separator: " + "), method: "GET",
            target: Array(target.utf8), headers: authorization(key))
    }

    static let reportOptions: [String: [String]] = [
        "summary": ["at"], "active": ["at"], "expiring": ["at", "within", "limit"], "churn": ["from", "to"],
        "refunds": ["from", "to", "limit"], "transfers": ["from", "to", "limit"], "unclaimed": ["limit"],
        "account": [], "original": [], "active-over-time": ["days"],
    ]

    static let adminReports = FuzzRoute(name: "GET /v1/admin/reports/*") { corpus, random in
        let name = random.chance(0.9) ? random.pick(Array(reportOptions.keys).sorted()) : oddIdentifier(&random).1
        var target = "/v1/admin/reports/\(name)"
        var kinds: [String] = []
        if name == "account" || name == "original" || random.chance(0.1) {
            let (kind, id) = oddIdentifier(&random)
            target += "/\(id)"
            kinds.append("id: \(kind)")
        }
        var query: [String] = []
        for option in (reportOptions[name] ?? []) + ["app", "environment", "format"] where random.chance(0.5) {
            let (kind, value) = oddOption(option, &random)
            query.append("\(option)=\(value)")
            kinds.append("\(option): \(kind)")
        }
        if random.chance(0.05) {
            query.append("bogus=1")
            kinds.append("unknown option")
        }
        if !query.isEmpty { target += "?" + query.joined(separator: "&") }
        let key = random.chance(0.93) ? corpus.adminKey : random.pick([corpus.keyOne, "", "sl_admin_bogus"])
        return FuzzRequest(
            route: "GET /v1/admin/reports/\(reportOptions[name] == nil ? "{unknown}" : name)",
            inputClass: kinds.isEmpty ? "plain" : kinds.joined(separator: " + "), method: "GET",
            target: Array(target.utf8), headers: authorization(key))
    }

    static let adminPage = FuzzRoute(name: "GET /admin?q=") { corpus, random in
        let (kind, q) = oddIdentifier(&random)
        let basic = "Basic " + Data("ops:\(random.chance(0.95) ? corpus.adminKey : "wrong")".utf8).base64EncodedString()
        var target = "/admin?q=\(q)"
        var kinds = ["q: \(kind)"]
        if random.chance(0.3) {
            let (appKind, app) = oddIdentifier(&random)
            target += "&app=\(app)"
            kinds.append("app: \(appKind)")
        }
        return FuzzRequest(
            route: "GET /admin", inputClass: kinds.joined(separator: " + "), method: "GET", target: Array(target.utf8),
            headers: [("Authorization", basic)])
    }

    // MARK: Helpers

    /// An identifier for a path segment or query value, percent-encoded: NUL, invalid UTF-8, long, odd.
    static func oddIdentifier(_ random: inout FuzzRandom) -> (String, String) {
        switch random.int(0...9) {
        case 0: return ("NUL (%00)", .percentEncoded(Array("al".utf8) + [0] + Array("ice".utf8)))
        case 1: return ("invalid UTF-8 (%FF)", .percentEncoded([0x61, 0xFF, 0xFE, 0x62]))
        case 2:
            let length = random.pick([255, 256, 1_000, 10_000])
            return ("very long (\(length))", String(repeating: random.pick(["a", "1", "%20"]), count: length))
        case 3: return ("encoded slash or dots", random.pick(["%2F", "..", "%2E%2E", "a%2Fb", "."]))
        case 4: return ("odd text", .percentEncoded(Array(random.pick(FuzzMutations.oddStrings).utf8)))
        case 5: return ("random bytes", .percentEncoded(random.bytes(random.int(1...40))))
        case 6: return ("broken percent escape", random.pick(["%", "%G1", "a%2", "%%%", "%u0000"]))
        case 7:
            return ("control character", .percentEncoded([0x61, random.pick([0x01, 0x0A, 0x0D, 0x7F, 0x1B]), 0x62]))
        case 8: return ("lone surrogate as CESU", .percentEncoded([0xED, 0xA0, 0x80]))
        default: return ("plain", random.pick(["alice", "bob", "1000000001", "com.example.one"]))
        }
    }

    static func oddDate(_ random: inout FuzzRandom) -> (String, String) {
        let text = random.pick(FuzzMutations.extremeDateTexts)
        return ("date \(text.prefix(40))", .percentEncoded(Array(text.utf8)))
    }

    static func oddOption(_ option: String, _ random: inout FuzzRandom) -> (String, String) {
        switch option {
        case "at", "from", "to": return oddDate(&random)
        case "limit", "days":
            let text = random.pick(FuzzMutations.extremeNumbers + ["", "abc", "10", "100000000"])
            return ("number \(text.prefix(40))", .percentEncoded(Array(text.utf8)))
        case "within":
            let text = random.pick([
                "7d", "1h", "0s", "-1d", "99999999999d", "9223372036854775807s", "1e308d", "d", "", "1.5d",
            ])
            return ("duration \(text)", .percentEncoded(Array(text.utf8)))
        case "format":
            let text = random.pick(["json", "csv", "table", "html", "", "TABLE", "%00"])
            return ("format \(text)", text == "%00" ? text : .percentEncoded(Array(text.utf8)))
        case "environment":
            let text = random.pick(["Production", "Sandbox", "production", "Xcode", "", "\u{0}"])
            return ("environment \(text.debugDescription)", .percentEncoded(Array(text.utf8)))
        default:
            if random.chance(0.5) { return ("plain", "com.example.one") }
            return oddIdentifier(&random)
        }
    }

    static func authorization(_ key: String?) -> [(name: String, value: String)] {
        [("Content-Type", "application/json")] + (key.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    static func request(_ route: String, _ inputClass: String, _ path: String, body: [UInt8], key: String?)
        -> FuzzRequest
    {
        FuzzRequest(
            route: route, inputClass: inputClass, method: "POST", target: Array(path.utf8), headers: authorization(key),
            body: body)
    }

    /// A JSON route's request: one or two mutated members, a whole-body mutation, or the seed itself;
    /// now and then another credential.
    static func jsonRequest(_ path: String, seed: FuzzJSON, corpus: FuzzCorpus, random: inout FuzzRandom) -> FuzzRequest
    {
        let route = "POST \(path)"
        var key: String? = corpus.keyOne
        var prefix = ""
        if random.chance(0.06) {
            key = random.pick([nil, corpus.keyTwo, corpus.adminKey, "sl_app_0000", "", "x y"])
            prefix =
                "credential \(key == corpus.keyTwo ? "of another app" : key == corpus.adminKey ? "admin" : "invalid") + "
        }
        switch random.int(0...9) {
        case 0:
            let (kind, body) = FuzzMutations.wholeBody(of: seed.bytes, using: &random)
            return request(route, prefix + kind, path, body: body, key: key)
        case 1:
            return request(route, prefix + "valid", path, body: seed.bytes, key: key)
        default:
            var body = seed
            var kinds: [String] = []
            for _ in 0..<(random.chance(0.2) ? 2 : 1) {
                let (kind, mutated) = FuzzMutations.mutateMember(of: body, using: &random)
                kinds.append(kind)
                body = mutated
            }
            if random.chance(0.1) { body = body.appending("unexpected", FuzzMutations.randomJSON(using: &random)) }
            return request(route, prefix + kinds.joined(separator: " + "), path, body: body.bytes, key: key)
        }
    }
}
