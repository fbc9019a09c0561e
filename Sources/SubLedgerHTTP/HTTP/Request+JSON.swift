import Foundation
import Hummingbird
import NIOCore
import SubLedgerUseCases

extension Request {
    /// The body decoded as JSON `T`: 413 `body_too_large` past the context's limit, 400 `malformed_body` when
    /// it cannot be read, 400 `invalid_text` when it is not UTF-8 or holds NUL, 400 `malformed_json` (naming
    /// the field) when it does not decode.
    func decodeJSON<T: Decodable>(as type: T.Type, context: SubLedgerRequestContext) async throws -> T {
        let buffer = try await collectBody(context: context)
        try RequestText.checkBody(buffer)
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: buffer))
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
        } catch {
            context.logger.debug("the request body could not be read", metadata: ["error": "\(error)"])
            throw APIError.badRequest(
                .malformedBody, "the request body could not be read (broken chunked framing or a closed connection)")
        }
    }
}
