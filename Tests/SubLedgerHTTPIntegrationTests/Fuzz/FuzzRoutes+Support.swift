import Foundation

extension FuzzRoute {
    /// `/v1/admin/lookup/{kind}/{id}`: odd ids of every kind, an odd or missing `bundle_id`, now and then an
    /// unknown parameter, a POST (apply) or a key of the wrong scope.
    static let adminLookups = FuzzRoute(name: "GET|POST /v1/admin/lookup/*") { corpus, random in
        let kind = random.pick(["order", "transaction", "token", "account"])
        let (idKind, id) = oddIdentifier(&random)
        var target = "/v1/admin/lookup/\(kind)/\(id)"
        var kinds = ["id: \(idKind)"]
        if random.chance(0.7) {
            let (appKind, app) = random.chance(0.7) ? ("app one", "com.example.one") : oddIdentifier(&random)
            target += "?bundle_id=\(app)"
            kinds.append("bundle_id: \(appKind)")
        }
        if random.chance(0.05) {
            target += target.contains("?") ? "&verbose=1" : "?verbose=1"
            kinds.append("unknown parameter")
        }
        let method = (kind == "order" || kind == "transaction") && random.chance(0.2) ? "POST" : "GET"
        let key = random.chance(0.93) ? corpus.adminKey : random.pick([corpus.keyOne, "", "sl_admin_bogus"])
        return FuzzRequest(
            route: "\(method) /v1/admin/lookup/\(kind)", inputClass: kinds.joined(separator: " + "), method: method,
            target: Array(target.utf8), headers: authorization(key))
    }
}
