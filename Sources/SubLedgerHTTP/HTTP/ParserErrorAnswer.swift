import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import SubLedgerCore
import SubLedgerUseCases

/// Answers a request the HTTP/1.1 parser refuses (below the router, before any route or middleware runs) in
/// the error shape of every other refusal, `{"error": {"code", "message"}}`, and closes the connection: after a
/// framing error the rest of the byte stream cannot be trusted to start a request.
///
/// Two handlers share one `ParserErrorAnswer`: `RequestBytesArrive` first in the pipeline, which shows it the
/// bytes as they arrive (to tell an over-long request line from over-long headers, which the parser reports
/// alike) and through which the answer is written past the HTTP encoder; and `ParserErrorCatcher` after the HTTP
/// codec, where the parser's error arrives, which keeps it from reaching the server's own bare `400`.
final class ParserErrorAnswer {
    /// The beginning of the line being read when it did not end in the bytes that began it, kept to recognise a
    /// request line (`GET /...`).
    private var currentLinePrefix: [UInt8] = []
    private var currentLineLength = 0
    /// The beginning of a line longer than `longLine` seen since the last request head.
    private var longLinePrefix: [UInt8]?
    private var rawContext: ChannelHandlerContext?
    private var answered = false
    /// Lines longer than this are remembered (the parser's own limit on a line, 80 KiB by default, is above it).
    let longLine: Int
    /// Where the answer's access line goes (`RequestLog`); nil writes none.
    private let logger: Logger?
    /// When the bytes of the request being read began to arrive (reset when its head is parsed).
    private var began: ContinuousClock.Instant?

    init(longLine: Int = 8 * 1024, logger: Logger? = nil) {
        self.longLine = longLine
        self.logger = logger.flatMap { RequestLog.isWritten(by: $0) ? $0 : nil }
    }

    /// Where the answer is written from: the context of `RequestBytesArrive`, first in the pipeline.
    func attach(raw context: ChannelHandlerContext) { rawContext = context }
    func detach() { rawContext = nil }

    /// Bytes as they arrive. Lines are found with `memchr`; a line's first bytes are copied only when it is long, or
    /// when it goes on in the next read (a request's lines usually end in the read that began them).
    func observe(_ bytes: UnsafeRawBufferPointer) {
        if began == nil, logger != nil { began = .now }
        guard let base = bytes.baseAddress else { return }
        var start = 0
        while start < bytes.count {
            guard let found = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start) else {
                take(UnsafeRawBufferPointer(rebasing: bytes[start...]))
                return
            }
            let end = base.distance(to: UnsafeRawPointer(found))
            if longLinePrefix == nil, currentLineLength + (end - start) > longLine {
                take(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                longLinePrefix = currentLinePrefix
            }
            endLine()
            start = end + 1
        }
    }

    private func take(_ bytes: UnsafeRawBufferPointer) {
        if currentLinePrefix.count < 16 { currentLinePrefix += bytes.prefix(16 - currentLinePrefix.count) }
        currentLineLength += bytes.count
    }

    private func endLine() {
        guard currentLineLength > 0 || !currentLinePrefix.isEmpty else { return }
        // Its storage is kept for the next line that goes on past a read.
        currentLinePrefix.removeAll(keepingCapacity: true)
        currentLineLength = 0
    }

    /// A request head was parsed: long lines seen so far belonged to it (or to an earlier body).
    fileprivate func headParsed() {
        longLinePrefix = nil
        began = nil
    }

    /// Whether the line that overflowed the parser is a request line: `METHOD SP target`.
    private var overflowIsRequestLine: Bool {
        let prefix = longLinePrefix ?? (currentLineLength > longLine ? currentLinePrefix : [])
        guard let space = prefix.firstIndex(of: UInt8(ascii: " ")), space > 0, space + 1 < prefix.count else {
            return false
        }
        let isMethod = prefix[..<space].allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
        return isMethod && [UInt8(ascii: "/"), UInt8(ascii: "*"), UInt8(ascii: "h")].contains(prefix[space + 1])
    }

    /// The status, code and message for a parser error.
    func refusal(for error: HTTPParserError) -> (status: HTTPResponse.Status, code: APIError.Code, message: String) {
        switch error {
        case .headerOverflow where overflowIsRequestLine:
            return (.uriTooLong, .uriTooLong, "the request target is longer than the server reads")
        case .headerOverflow:
            return (
                .requestHeaderFieldsTooLarge, .headersTooLarge,
                "the request's headers are larger than the server reads"
            )
        case .invalidContentLength, .unexpectedContentLength:
            return (
                .badRequest, .malformedRequest,
                "the Content-Length is invalid, repeated with different values, or sent with Transfer-Encoding"
            )
        case .invalidChunkSize:
            return (.badRequest, .malformedRequest, "a chunk of the body is malformed")
        case .invalidHeaderToken:
            return (.badRequest, .malformedRequest, "a header line is malformed (folded header lines are refused)")
        case .invalidURL, .invalidPath, .invalidQueryString, .invalidFragment, .invalidHost, .invalidPort,
            .invalidCharactersUsed:
            return (.badRequest, .malformedRequest, "the request target holds characters HTTP does not allow")
        case .invalidMethod:
            return (.badRequest, .malformedRequest, "the method is not a valid HTTP method")
        case .invalidVersion:
            return (.badRequest, .malformedRequest, "the request is not HTTP/1.x")
        default:
            return (.badRequest, .malformedRequest, "the request is not valid HTTP/1.1")
        }
    }

    /// Writes the answer to `error` straight to the socket and closes the connection, once per connection;
    /// `false` when it cannot (the raw handler is not in the pipeline), so the error goes on as before.
    fileprivate func answer(_ error: HTTPParserError) -> Bool {
        guard let context = rawContext else { return false }
        guard !answered else { return true }
        answered = true
        // The connection closed under a request (the parser reports the request cut short): there is no one to
        // answer, and whoever closed it (a 408, the client) accounts for the request.
        guard context.channel.isActive else { return true }
        let (status, code, message) = refusal(for: error)
        let body = ErrorBody.json(code: code.rawValue, message: message)
        var head = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        head += "Content-Type: application/json; charset=utf-8\r\n"
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n"
        // Ended as every other answer of the service is (`ServerHeaders`).
        var date = ServerHeaders.DateText()
        head += "Date: \(date.now())\r\nServer: \(ServerHeaders.name)\r\n\r\n"
        var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        let bound = context.loopBound
        context.writeAndFlush(NIOAny(buffer)).whenComplete { _ in bound.value.close(promise: nil) }
        if let logger {
            // The parser refused the request before its head was whole: neither method nor path is known.
            RequestLog.writeBelowRouter(
                logger, method: nil, target: nil, status: status, code: code.rawValue,
                duration: began.map { $0.duration(to: .now) } ?? .zero)
        }
        return true
    }
}

/// After the HTTP codec: answers the parser's errors through the `ParserErrorAnswer` and passes everything else on.
///
/// An error inside a request (a broken chunk of a body being read) goes on to the route reading the body, which
/// answers it through `ErrorMiddleware` (`malformed_body`). An error where the next request should start is
/// answered here, once the answer to the request before it (if one is still being written) has ended, so the
/// two never interleave on the connection.
final class ParserErrorCatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    let answer: ParserErrorAnswer
    /// A request's parts are being read.
    private var inRequest = false
    /// Requests whose answer has not ended yet.
    private var unanswered = 0
    /// A parser error waiting for the answer in progress to end.
    private var pending: HTTPParserError?

    init(_ answer: ParserErrorAnswer) { self.answer = answer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            inRequest = true
            unanswered += 1
            // The long lines seen so far were this request's (or an earlier body's).
            answer.headParsed()
        case .body: break
        case .end: inRequest = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        unanswered = max(0, unanswered - 1)
        context.write(data, promise: promise)
        if unanswered == 0, let error = pending {
            pending = nil
            context.flush()
            if !answer.answer(error) { context.fireErrorCaught(error) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !inRequest, let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if unanswered > 0 {
            pending = parserError
        } else if !answer.answer(parserError) {
            context.fireErrorCaught(error)
        }
    }
}
