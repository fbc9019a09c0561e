import Foundation
import Hummingbird
import Logging
import NIOCore
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
import SubLedgerUseCases

/// Turns every error into the `{"error": {...}}` shape: the layers' typed errors as `HTTPErrorMapping` says,
/// client mistakes into 4xx with a code (a value the database refuses included), a database that is down or
/// read-only (a failover), or a Citus worker lost mid-statement, into 503 (so callers, and the stores' pushes, retry), and
/// anything else into a logged 500. Every typed error caught here is listed in `ErrorCatalog`, against which
/// docs/reference/errors.md is held.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as IngestionError {
            throw APIError(error)
        } catch let error as AppleGatewayError {
            throw APIError(error)
        } catch let error as APIKeyError {
            throw APIError(error)
        } catch let error as SupportError {
            throw APIError(error)
        } catch let error as ReportError {
            throw APIError(error)
        } catch let error as ConsumptionInputError {
            throw APIError(error)
        } catch let error as OfferError {
            throw APIError(error)
        } catch let error as WebhookAdminError {
            throw APIError(error)
        } catch let error as GrantError {
            throw APIError(error)
        } catch let error as MergeError {
            throw APIError(error)
        } catch let error as ErasureError {
            throw APIError(error)
        } catch let conflict as AccountErasures.Conflict {
            throw APIError(ErasureError(conflict))
        } catch let error as HTTPError {
            throw Self.map(error)
        } catch is NIOTooManyBytesError {
            throw APIError.bodyTooLarge(limit: context.maxUploadSize)
        } catch is CancellationError {
            // The client went away (mid-body or mid-request): its mistake or its network, not a server fault.
            context.logger.debug("request cancelled")
            throw APIError.badRequest(.malformedBody, "the request was cancelled before it was complete")
        } catch let error as DecodingError {
            throw APIError.badRequest(.malformedJSON, Self.describe(error))
        } catch let error as PostgresError where Self.meansUnavailable(error) {
            context.logger.warning("database unavailable", metadata: ["error": "\(error)"])
            throw APIError.unavailable(
                .databaseUnavailable, "the database is unavailable; retry later", retryAfter: 5)
        } catch let error as PostgresError where error.sqlState == .readOnlySQLTransaction {
            // A write reached a server that takes none: a standby, or a primary on its way down in a failover.
            // `target_session_attrs=read-write` keeps new connections off standbys; this covers the moment in
            // between, and a URL without it. The write did not happen, so a retry is right.
            context.logger.warning("the database refused a write as read-only", metadata: ["error": "\(error)"])
            throw APIError.unavailable(
                .databaseUnavailable, "the database accepts no writes right now; retry later", retryAfter: 5)
        } catch let error as PostgresError where Self.isRefusedValue(error) {
            // The edge validates text before it gets here; this is the net under it. A value the database
            // refuses came from the request, so retrying (what a 5xx asks Apple to do) cannot help.
            context.logger.warning("the database refused a value of the request", metadata: ["error": "\(error)"])
            throw APIError.badRequest(.invalidValue, "a value in the request cannot be stored")
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            throw APIError(.internalServerError, code: .internalError, message: "an internal error occurred")
        }
    }

    static func map(_ error: HTTPError) -> APIError {
        switch error.status {
        case .contentTooLarge:
            return APIError(error.status, code: .bodyTooLarge, message: "the request body is larger than 1 MiB")
        case .notFound: return APIError(error.status, code: .notFound, message: "no such route")
        case .methodNotAllowed:
            return APIError(error.status, code: .methodNotAllowed, message: "method not allowed on this route")
        case .unauthorized:
            var mapped = APIError(
                error.status, code: .unauthorized, message: error.body ?? "a valid API key is required")
            mapped.challenge = APIKeyMiddleware.bearerChallenge
            return mapped
        case .badRequest:
            return APIError(error.status, code: .malformedRequest, message: error.body ?? "malformed request")
        case .uriTooLong:
            return APIError(error.status, code: .uriTooLong, message: error.body ?? "the request target is too long")
        case .requestHeaderFieldsTooLarge:
            return APIError(
                error.status, code: .headersTooLarge, message: error.body ?? "the request's headers are too large")
        case .requestTimeout:
            return APIError(error.status, code: .requestTimeout, message: error.body ?? "the request took too long")
        default:
            // A code per status would be a code per accident; every other refusal shares one.
            if error.status.kind == .serverError {
                return APIError(error.status, code: .internalError, message: "an internal error occurred")
            }
            return APIError(
                error.status, code: .requestRefused, message: error.body ?? error.status.reasonPhrase)
        }
    }

    /// Whether the database cannot answer for the moment, so a retry later is right: the connection is gone or
    /// none could be had in time, or (Citus) the coordinator lost a worker under the statement, as while a
    /// worker restarts. A write that failed so did not happen (Citus commits in two phases), and its retry is
    /// answered as any repeated input is.
    static func meansUnavailable(_ error: PostgresError) -> Bool {
        error.isConnectionError || error.isRemoteNodeFailure || error.kind == .poolTimeout || error.kind == .poolClosed
    }

    /// Whether the database refused a value sent as a parameter rather than failing: text libpq cannot send
    /// (NUL) or a data exception (SQLSTATE class 22: out of range, invalid text representation, ...).
    static func isRefusedValue(_ error: PostgresError) -> Bool {
        error.kind == .invalidParameter || error.sqlState?.errorClass == "22"
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let prefix = path(context.codingPath)
            return "missing field '\(prefix.isEmpty ? key.stringValue : prefix + "." + key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type for field '\(path(context.codingPath))'"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "the body is not valid JSON" : "invalid value for '\(path(context.codingPath))'"
        @unknown default:
            return "the body could not be decoded"
        }
    }
}
