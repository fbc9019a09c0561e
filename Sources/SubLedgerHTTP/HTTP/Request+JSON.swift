import Foundation
import Hummingbird
import NIOCore
import SubLedgerUseCases

/// The JSON object a route takes as its body, and the names of its fields.
///
/// Every route's body is checked against its fields: a key outside them is refused (400 `unknown_field`) rather
/// than ignored, since a misspelt optional field (`orderId` for `order_id`) would otherwise change nothing and say
/// nothing. The stores' notification bodies are not request bodies in this sense: the stores add fields, and a
/// notification is never refused for one.
protocol JSONRequestBody: Decodable {
    /// The body's field names as sent (openapi.yaml's properties of the route's request body).
    static var fields: Set<String> { get }
    /// Whether a field given as `null` is refused (400 `malformed_json`) rather than read as absent: for bodies
    /// whose absent fields mean "not stated" and where a null would record something the client did not state.
    static var refusesNull: Bool { get }
}

extension JSONRequestBody {
    static var refusesNull: Bool { false }
}

extension Request {
    /// The body decoded as the JSON object `T`: 413 `body_too_large` past the context's limit, 400 `malformed_body`
    /// when it cannot be read, 400 `invalid_text` when it is not UTF-8 or holds NUL, 400 `unknown_field` for a key
    /// `T` does not take, 400 `malformed_json` (naming the field) when it does not decode. With `emptyIsObject`, an
    /// empty body reads as `{}` (for bodies whose every field is optional).
    func decodeJSON<T: JSONRequestBody>(
        as type: T.Type, context: SubLedgerRequestContext, emptyIsObject: Bool = false
    ) async throws -> T {
        let buffer = try await collectBody(context: context)
        if emptyIsObject, buffer.readableBytes == 0 {
            return try Self.decodeJSON(T.self, from: Data("{}".utf8))
        }
        try RequestText.checkBody(buffer)
        return try Self.decodeJSON(T.self, from: Data(buffer: buffer))
    }

    /// `T` decoded from `data`, its keys checked first (one parse: the keys are read from the decoder `T` reads).
    static func decodeJSON<T: JSONRequestBody>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(CheckedBody<T>.self, from: data).body
        } catch let error as DecodingError {
            throw APIError.badRequest(.malformedJSON, ErrorMiddleware<BasicRequestContext>.describe(error))
        }
    }

    /// The whole body, at most the context's limit: 413 `body_too_large` past it, 400 `malformed_body` when the
    /// client's framing is broken (a bad chunk) or it goes away before the end.
    ///
    /// Those failures are the client's, so they are logged at debug level, not as server errors.
    func collectBody(context: SubLedgerRequestContext) async throws -> ByteBuffer {
        do {
            return try await body.collect(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw APIError.bodyTooLarge(limit: context.maxUploadSize)
        } catch let error as CancellationError {
            throw error
        } catch is RequestTimedOut {
            // Already answered 408 below the router (`RequestTimeoutAnswer`); this is what the router logs.
            throw APIError(
                .requestTimeout, code: .requestTimeout, message: "the request did not arrive completely in time")
        } catch {
            context.logger.debug("the request body could not be read", metadata: ["error": "\(error)"])
            throw APIError.badRequest(
                .malformedBody, "the request body could not be read (broken chunked framing or a closed connection)")
        }
    }
}

/// A key of a JSON object read or written by name, whatever the name (a body's keys checked before it is decoded, an
/// answer's key named at run time).
struct BodyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A body whose keys were checked against `Body.fields` before it was decoded, so that a misspelt field is named
/// as unknown rather than reported as a missing required one.
private struct CheckedBody<Body: JSONRequestBody>: Decodable {
    var body: Body

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: BodyKey.self)
        let keys = container.allKeys
        if let unknown = keys.map(\.stringValue).filter({ !Body.fields.contains($0) }).min() {
            throw APIError.badRequest(
                .unknownField,
                "unknown field '\(unknown.prefix(64))'; allowed: \(Body.fields.sorted().joined(separator: ", "))")
        }
        if Body.refusesNull,
            let null = try keys.filter({ try container.decodeNil(forKey: $0) }).map(\.stringValue).min()
        {
            throw APIError.badRequest(.malformedJSON, "'\(null)' must not be null; leave it out instead")
        }
        body = try Body(from: decoder)
    }
}
