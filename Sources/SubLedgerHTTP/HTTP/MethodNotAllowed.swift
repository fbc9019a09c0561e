import HTTPTypes
import Hummingbird

/// 405 `method_not_allowed` for a route asked with a method it does not take, with `Allow` naming the methods
/// it does (RFC 9110, section 15.5.6). Hummingbird's router answers a known path with another method 404, as if
/// the path were unknown; so, once every route is registered, each path gets a responder for each of HTTP's
/// methods it lacks. HEAD is left out (it stays 404: no route serves it), as are methods HTTP does not define,
/// but for QUERY (the safe method with a body, draft-ietf-httpbis-safe-method-w-body), which contract testers and
/// proxies already send: a known path asked with it is 405, not a 404 saying the path does not exist.
enum MethodNotAllowed {
    /// The methods answered 405 where a route does not take them.
    static let methods: [HTTPRequest.Method] = [
        .get, .post, .put, .patch, .delete, .options, .trace, HTTPRequest.Method("QUERY")!,
    ]

    /// Registers the 405 responders; call after every route is on `router`.
    static func register(on router: Router<SubLedgerRequestContext>) {
        var taken: [String: (path: RouterPath, methods: Set<HTTPRequest.Method>)] = [:]
        for route in router.routes {
            taken[route.path.description, default: (route.path, [])].methods.insert(route.method)
        }
        for (path, methodsTaken) in taken.values {
            let allow = methodsTaken.map(\.rawValue).sorted().joined(separator: ", ")
            for method in methods where !methodsTaken.contains(method) {
                router.on(path, method: method) { _, _ -> Response in
                    throw APIError.methodNotAllowed(allow: allow)
                }
            }
        }
    }
}
