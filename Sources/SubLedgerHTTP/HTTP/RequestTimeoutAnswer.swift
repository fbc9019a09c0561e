import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes

/// Answers 408 `request_timeout` with `Connection: close` (and `Date` and `Server`, as every answer), and closes, when a request has begun to arrive and is
/// not complete within the timeout: a client that sent part of its headers or of its body and then nothing.
/// Without it the idle timeout closed such a connection with no answer at all.
///
/// A request begins with its first byte (seen by `RequestBytesArrive`, first in the pipeline, before the parser
/// has a head to show; line ends alone, which may follow a body, begin nothing) or with its head, and ends with
/// its `.end` part. The answer is written only when no earlier request's answer is still owed and none has begun
/// for this one, so answers never interleave; otherwise the connection is only closed. The idle timeout's close
/// of a connection in the middle of a request (and a graceful shutdown's) passes through here and is answered
/// the same way: 408 tells the client that it may send the request again on a new connection.
final class RequestTimeoutAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    private var context: ChannelHandlerContext?
    /// A request has begun and its `.end` has not been read.
    private var inRequest = false
    /// The head of the request in progress has been read (and passed on).
    private var headRead = false
    /// Requests whose head has been read and whose answer has not ended.
    private var unanswered = 0
    /// An answer's head has been written and its end not yet.
    private var answering = false
    /// When the request in progress began.
    private var began = NIODeadline.distantPast
    /// The scheduled check of the request in progress. A request does not schedule its own: the check of an
    /// earlier one, when it comes, finds the request then in progress and waits on for what is left of its time.
    /// So a connection's requests cost a reading of the clock each, not a timer each.
    private var deadline: Scheduled<Void>?
    private var timedOut = false
    /// Where the answer's access line goes (`RequestLog`); nil writes none.
    private let logger: Logger?

    init(timeout: Duration, logger: Logger? = nil) {
        self.timeout = TimeAmount(timeout)
        self.logger = logger.flatMap { RequestLog.isWritten(by: $0) ? $0 : nil }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelDeadline()
        self.context = nil
    }

    /// Bytes arrived (seen by `RequestBytesArrive`, before the HTTP decoder holds them): a request begins unless one
    /// is in progress.
    func bytesArrived(_ buffer: ByteBuffer) {
        guard !inRequest, let context else { return }
        let startsSomething = buffer.readableBytesView.contains { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        if startsSomething { begin(context) }
    }

    private func begin(_ context: ChannelHandlerContext) {
        inRequest = true
        headRead = false
        began = .now()
        if deadline == nil { check(at: began + timeout, context) }
    }

    /// At `instant`, answers the request then in progress if its time is up, or checks again when it will be.
    private func check(at instant: NIODeadline, _ context: ChannelHandlerContext) {
        deadline = context.eventLoop.assumeIsolated().scheduleTask(deadline: instant) { [self] in
            deadline = nil
            guard inRequest, let context = self.context else { return }
            let due = began + timeout
            guard due <= .now() else {
                check(at: due, context)
                return
            }
            answerAndClose(context, promise: nil)
        }
    }

    private func cancelDeadline() {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            if !inRequest { begin(context) }
            headRead = true
            unanswered += 1
        case .body:
            break
        case .end:
            // The check stays scheduled: the next request on this connection, likely soon, uses it.
            inRequest = false
            headRead = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Once the 408 is answered, the connection is closing: the router's own answer to the request whose body
        // failed (`RequestTimedOut`) is not written after it.
        guard !timedOut else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.kind != .informational:
            answering = true
        case .end:
            answering = false
            unanswered = max(0, unanswered - 1)
        default:
            break
        }
        context.write(data, promise: promise)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, inRequest, !timedOut, context.channel.isActive else {
            context.close(mode: mode, promise: promise)
            return
        }
        answerAndClose(context, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        inRequest = false
        cancelDeadline()
        context.fireChannelInactive()
    }

    /// The 408 answer when nothing else is being written or owed, then the close.
    private func answerAndClose(_ context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        guard !timedOut else { return }
        timedOut = true
        inRequest = false
        cancelDeadline()
        // This request's own answer, begun or written, or an earlier one still owed, would interleave with ours.
        guard !answering, unanswered == (headRead ? 1 : 0) else {
            context.close(promise: promise)
            return
        }
        // A request whose head was read is in the router, reading its body: the body fails with `RequestTimedOut`
        // (before the close, whose end of stream the parser reports otherwise), so the router's access line says 408
        // as the client is answered; the router's own answer is not written (`write`).
        if headRead { context.fireErrorCaught(RequestTimedOut()) }
        let body = ErrorBody.json(
            code: APIError.Code.requestTimeout.rawValue,
            message: "the request did not arrive completely within \(Self.describe(timeout))")
        var fields = HTTPFields()
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.contentLength] = String(body.count)
        fields[.connection] = "close"
        // Ended as every other answer of the service is (`ServerHeaders`).
        var date = ServerHeaders.DateText()
        ServerHeaders.append(to: &fields, date: &date)
        var buffer = context.channel.allocator.buffer(capacity: body.count)
        buffer.writeBytes(body)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .requestTimeout, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(buffer)), promise: nil)
        let bound = context.loopBound
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            bound.value.close(promise: promise)
        }
        // A request that stopped within its head reached nothing else, so its line is written here.
        if !headRead, let logger {
            RequestLog.writeBelowRouter(
                logger, method: nil, target: nil, status: .requestTimeout,
                code: APIError.Code.requestTimeout.rawValue,
                duration: .nanoseconds((NIODeadline.now() - began).nanoseconds))
        }
    }

    /// `30 s`, `1.5 s`.
    static func describe(_ amount: TimeAmount) -> String {
        let milliseconds = amount.nanoseconds / 1_000_000
        return milliseconds % 1000 == 0
            ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }
}

/// How the body of a request that stopped arriving ends for the router, once `RequestTimeoutAnswer` has answered it
/// 408 (`Request.collectBody` turns it into 408 `request_timeout`).
struct RequestTimedOut: Error {}
