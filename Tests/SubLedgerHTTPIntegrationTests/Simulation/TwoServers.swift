import HTTPTypes
import HummingbirdTesting
import NIOCore

/// The two `serve` processes of a world, both on its database: each submission goes to one of them, and a
/// "concurrent" step sends one submission to both at once, or two accounts' submissions of one purchase, one to each.
enum TwoServers {
    /// Sends the same request to `first` and `second` at once and answers both answers, `first`'s first.
    static func both(
        _ first: any TestClientProtocol, _ second: any TestClientProtocol, _ method: HTTPRequest.Method,
        _ uri: String, key: String, json: [String: String]
    ) async throws -> [(status: HTTPResponse.Status, json: [String: Any])] {
        let (headers, body) = try JSONCall.request(key: key, json: json, raw: nil)
        async let one = first.executeRequest(uri: uri, method: method, headers: headers, body: body)
        async let two = second.executeRequest(uri: uri, method: method, headers: headers, body: body)
        let answers = try await [one, two]
        return answers.map { ($0.status, JSONCall.parse($0.body)) }
    }

    /// Sends one request to `first` and another to `second` at once (each a client and a JSON body) and answers both
    /// answers, `first`'s first.
    static func both(
        _ first: (any TestClientProtocol, [String: String]), _ second: (any TestClientProtocol, [String: String]),
        _ method: HTTPRequest.Method, _ uri: String, key: String
    ) async throws -> [(status: HTTPResponse.Status, json: [String: Any])] {
        let one = try JSONCall.request(key: key, json: first.1, raw: nil)
        let two = try JSONCall.request(key: key, json: second.1, raw: nil)
        async let answerOne = first.0.executeRequest(uri: uri, method: method, headers: one.0, body: one.1)
        async let answerTwo = second.0.executeRequest(uri: uri, method: method, headers: two.0, body: two.1)
        let answers = try await [answerOne, answerTwo]
        return answers.map { ($0.status, JSONCall.parse($0.body)) }
    }
}
