import Foundation
import Hummingbird
import NIOCore

extension Request {
    /// The body decoded as JSON `T`: 413 `body_too_large` past the context's limit, 400 `malformed_json`
    /// (naming the field) when it does not decode.
    func decodeJSON<T: Decodable>(as type: T.Type, context: some RequestContext) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await body.collect(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, code: "body_too_large", message: "the request body is larger than 1 MiB")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw APIError.badRequest("malformed_json", ErrorMiddleware<BasicRequestContext>.describe(error))
        }
    }
}
