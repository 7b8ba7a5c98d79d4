import Foundation
import Logging
import RemoteAuth

/// The tool's logging: `REMOTE_AUTH_LOG=LEVEL` sends the library's log (swift-log) to stderr at
/// that level (`trace`, `debug`, `info`, `notice`, `warning`, `error`, `critical`); without it
/// nothing below `warning` is shown. The library never logs a secret, at any level.
enum LogOutput {
    static let variable = "REMOTE_AUTH_LOG"

    /// Bootstraps swift-log once, before any command runs.
    ///
    /// - Throws: ``CLIFailure`` for a level that is not one of swift-log's.
    static func bootstrap(environment: [String: String]) throws {
        let level: Logger.Level
        if let named = environment[variable], !named.isEmpty {
            guard let parsed = Logger.Level(rawValue: named.lowercased()) else {
                throw CLIFailure(
                    "\(variable)=\(named) is not a log level: use one of "
                        + Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                )
            }
            level = parsed
        } else {
            level = .warning
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    /// The logger of `request -v`: the authenticators' decisions as curl shows its own, one
    /// `* ` line each (a challenge answered, a token refreshed and why, a DPoP nonce adopted, a
    /// redirect and whether credentials went with it), beside the library's log when
    /// ``variable`` asks for one.
    /// `label`'s logger: ``verbose(label:)`` for `-v`, else the bootstrapped one.
    static func logger(_ label: String, verbose: Bool) -> Logger {
        verbose ? Self.verbose(label: label) : Logger(label: label)
    }

    static func verbose(label: String) -> Logger {
        Logger(label: label) { label in
            MultiplexLogHandler([VerboseLogHandler(), Logger(label: label).handler])
        }
    }
}

/// Writes the library's decisions as `* ` lines on stderr (`request -v`); everything else it
/// drops. Only metadata the library marks as shown is printed, none of which is a secret.
struct VerboseLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard let line = Self.line(message: "\(event.message)", metadata: event.metadata ?? [:]) else { return }
        Terminal.writeError("* \(line)\n")
    }

    /// The `* ` line for a record, or `nil` for one that `-v` does not show.
    static func line(message: String, metadata: Logger.Metadata) -> String? {
        func value(_ key: String) -> String? { metadata[key].map { "\($0)" } }
        switch message {
        case "authentication":
            return value("decision")
        case "refreshing the access token":
            return "Refreshing the access token (\(value("reason") ?? "?"), grant \(value("grant_type") ?? "?"))"
        case "access token renewed":
            return value("outcome") == "adopted"
                ? "Took the access token another request had renewed" : "Access token renewed"
        case "access token renewal failed":
            return "The access token could not be renewed (\(value("error") ?? "?"))"
        case "holding the session's key in the store":
            return "Holding the session's key in the store (waited \(value("waited") ?? "?"))"
        case "token request":
            return "Token request (\(value("grant_type") ?? "?")) answered \(value("status") ?? "?")"
        case "redirect":
            let dropped = value("crossOrigin") == "true" ? ", credentials dropped (another origin)" : ""
            return "Following the \(value("status") ?? "?") redirect to \(value("to") ?? "?")\(dropped)"
        default:
            return nil
        }
    }
}
