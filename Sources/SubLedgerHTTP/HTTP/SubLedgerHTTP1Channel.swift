import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The service's HTTP/1.1 connections: Hummingbird's pipeline (`HTTP1Channel`), with SubLedger's handlers in
/// it. The parser's refusals are answered in the error shape (`ParserErrorAnswer`), a request that does not
/// arrive in time is answered 408 (`RequestTimeoutAnswer`), and entitlement reads are
/// answered on the event loop (`EntitlementReadsOnEventLoop`) after Hummingbird's connection state handler, so
/// its idle timeout and graceful shutdown count those requests as they count the router's.
struct SubLedgerHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    /// How long a connection may sit without a request before it is closed.
    let idleTimeout: Duration?
    /// How long a request may take to arrive once begun before it is answered 408 (`RequestTimeoutAnswer`).
    var requestTimeout: Duration = .seconds(30)
    /// Entitlement reads answered on the event loop; nil sends every request to the router.
    let entitlementReads: EntitlementReadRoute?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            // Hummingbird's own limits (`HTTP1Channel.Configuration.DecoderConfiguration`).
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = 80 * 1024
            limits.maxHeaderListSize = 80 * 1024
            limits.maxHeaderFieldCount = 1000
            let pipeline = channel.pipeline.syncOperations
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            let parserErrors = ParserErrorAnswer(logger: logger)
            let timeout = RequestTimeoutAnswer(timeout: requestTimeout, logger: logger)
            // Both see the bytes before the HTTP decoder holds them, through one handler.
            try pipeline.addHandler(RequestBytesArrive(timeout: timeout, parserErrors: parserErrors), position: .first)
            try pipeline.addHandler(ParserErrorCatcher(parserErrors))
            // Before the connection state handler, so that its idle timeout's close of a half-read request is
            // answered too.
            try pipeline.addHandler(timeout)
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: idleTimeout, logger: logger))
            if let entitlementReads {
                try pipeline.addHandler(EntitlementReadsOnEventLoop(route: entitlementReads))
            }
            return try NIOAsyncChannel(
                wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}
