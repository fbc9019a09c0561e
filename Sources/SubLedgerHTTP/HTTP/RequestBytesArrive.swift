import NIOCore

/// First in the pipeline, before the HTTP decoder holds them: shows the bytes read to the two answers that need the
/// bytes themselves. `RequestTimeoutAnswer` starts a request's clock at its first byte; `ParserErrorAnswer` tells an
/// over-long request line from over-long headers, and writes its answer from here, past the HTTP encoder.
///
/// One handler for both (they were one each): every handler in the pipeline costs each read a call through the
/// pipeline, and this one is on every read of every connection.
final class RequestBytesArrive: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let timeout: RequestTimeoutAnswer
    private let parserErrors: ParserErrorAnswer

    init(timeout: RequestTimeoutAnswer, parserErrors: ParserErrorAnswer) {
        self.timeout = timeout
        self.parserErrors = parserErrors
    }

    func handlerAdded(context: ChannelHandlerContext) { parserErrors.attach(raw: context) }
    func handlerRemoved(context: ChannelHandlerContext) { parserErrors.detach() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        timeout.bytesArrived(buffer)
        buffer.withUnsafeReadableBytes { parserErrors.observe($0) }
        context.fireChannelRead(data)
    }
}
