import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
package import RemoteAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension TransportError {
    /// The ``RemoteAuth/TransportError`` for an error of SwiftNIO or NIOSSL met while talking to
    /// `origin`, by the error's type and fields (never its text): `NIOConnectionError` (name
    /// resolution and every connection attempt), `IOError` (by `errno`), `ChannelError`,
    /// `NIOSSLError`. Anything else is `fallback`.
    package init(nio error: any Error, origin: String, fallback: Code) {
        switch error {
        case let error as TransportError:
            self = error
        case let error as NIOConnectionError:
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                self.init(.hostNotFound, "the host name '\(error.host)' does not resolve", underlying: error)
            } else if !error.connectionErrors.isEmpty,
                error.connectionErrors.allSatisfy({ ($0.error as? IOError)?.errnoCode == ECONNREFUSED })
            {
                self.init(
                    .connectionRefused,
                    "\(origin) refused the connection",
                    underlying: error
                )
            } else if let timeout = error.connectionErrors.lazy.compactMap({ Self.connectTimeout($0.error) }).first {
                self.init(.timedOut, "connecting to \(origin) took longer than \(timeout)", underlying: error)
            } else {
                self.init(.connectFailed, "cannot connect to \(origin)", underlying: error)
            }
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            self.init(
                .connectionRefused,
                "\(origin) refused the connection",
                underlying: error
            )
        case let error as IOError where error.errnoCode == ECONNRESET || error.errnoCode == EPIPE:
            self.init(.connectionClosed, "\(origin) reset the connection", underlying: error)
        case let error as ChannelError:
            if let timeout = Self.connectTimeout(error) {
                self.init(.timedOut, "connecting to \(origin) took longer than \(timeout)", underlying: error)
            } else if error == .eof || error == .ioOnClosedChannel || error == .alreadyClosed
                || error == .outputClosed || error == .inputClosed
            {
                self.init(.connectionClosed, "\(origin) closed the connection", underlying: error)
            } else {
                self.init(fallback, "the exchange with \(origin) failed (\(error))", underlying: error)
            }
        case let error as NIOSSLError:
            switch error {
            case .uncleanShutdown:
                self.init(.connectionClosed, "\(origin) closed the TLS connection uncleanly", underlying: error)
            default:
                self.init(
                    .tlsHandshakeFailed,
                    "the TLS handshake with \(origin) failed\(Self.tlsAlertHint(error))",
                    underlying: error
                )
            }
        case let error as HTTPParserError:
            self.init(.malformedResponse, "\(origin) sent bytes that are not an HTTP/1.1 response", underlying: error)
        case let error as BoringSSLError:
            self.init(
                .tlsHandshakeFailed,
                "TLS with \(origin) failed\(Self.tlsAlertHint(error))",
                underlying: error
            )
        default:
            self.init(fallback, "the exchange with \(origin) failed", underlying: error)
        }
    }

    private static func connectTimeout(_ error: any Error) -> TimeAmount? {
        if case .connectTimeout(let amount) = error as? ChannelError { return amount }
        return nil
    }

    /// A plain-words reading of a TLS alert from the server. A TLS 1.3 server checks the client's
    /// certificate after the client's side of the handshake has ended, so its refusal arrives
    /// while the request is written or its response read.
    ///
    /// NIOSSL keeps BoringSSL's packed error code private (`BoringSSLInternalError` shows only
    /// its text), so this reads the alert's name from that text: the one place we match text.
    package static func tlsAlertHint(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("CERTIFICATE_REQUIRED") { return " (the server requires a client certificate)" }
        if text.contains("UNKNOWN_CA") || text.contains("BAD_CERTIFICATE") {
            return " (the server did not accept the client certificate)"
        }
        return ""
    }
}
