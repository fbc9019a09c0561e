import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import SubLedgerCore

/// Posts notification bodies to receivers and classifies the outcome with Apple's `sendAttemptResult` values.
struct NotificationDelivery: Sendable {
    let httpClient: HTTPClient
    let timeout: Duration
    let logger: Logger

    func post(body: Data, to url: String, at instant: Instant) async -> NotificationRecord.Attempt {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "App Store Simulator")
        request.body = .bytes(ByteBuffer(bytes: body))
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        do {
            let response = try await httpClient.execute(request, timeout: .nanoseconds(nanoseconds), logger: logger)
            _ = try await response.body.collect(upTo: 1024 * 1024)
            let status = Int(response.status.code)
            let result = (200..<300).contains(status) ? "SUCCESS" : "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
            logger.debug("notification posted", metadata: ["status": "\(status)", "url": "\(url)"])
            return .init(date: instant, result: result, httpStatus: status)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            return .init(date: instant, result: "TIMED_OUT", httpStatus: nil)
        } catch let error as HTTPClientError where error == .connectTimeout {
            return .init(date: instant, result: "TIMED_OUT", httpStatus: nil)
        } catch {
            logger.debug("notification delivery failed", metadata: ["error": "\(error)"])
            return .init(date: instant, result: "NO_RESPONSE", httpStatus: nil)
        }
    }
}
