import ArgumentParser
import Foundation
import RemoteAuth
import RemoteAuthFileStore
import RemoteAuthNIO

/// `remote-auth registrations`: the clients the tool registered dynamically (RFC 7591) for its
/// profiles, read and deleted at the server through RFC 7592 with the registration access token
/// the profile keeps. Secrets are never printed.
struct RegistrationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registrations",
        abstract: "List, show or delete the clients registered dynamically for profiles (RFC 7591, RFC 7592).",
        discussion: ExitStatus.help,
        subcommands: [List.self, Show.self, Delete.self]
    )

    /// The profiles whose client was registered with RFC 7592 management, in the store's order.
    static func registered(in store: ProfileStore) async throws -> [OAuth2Profile] {
        var found: [OAuth2Profile] = []
        for key in try await store.keys() {
            guard let profile = try await OAuth2Profile.load(key.service, from: store),
                profile.session.registration.registrationClientURI != nil
            else { continue }
            found.append(profile)
        }
        return found
    }

    /// `body` over a transport with the TLS options, shut down after; a failure said as
    /// `failing: <reason><then>`.
    static func atServer<T: Sendable>(
        _ tls: TLSOptions,
        profile: String,
        failing: String,
        then: String = "",
        _ body: (any HTTPTransport) async throws -> T
    ) async throws -> T {
        let nio = try tls.transport()
        do {
            let value = try await RequestCommand.withTransport(nio, connectTimeout: nil, timeout: nil, body)
            await nio?.shutdown()
            return value
        } catch {
            await nio?.shutdown()
            throw CLIFailure(
                "\(failing): \(describeOAuth2(error, profile: profile))\(then)",
                status: ExitStatus(for: error)
            )
        }
    }

    /// The profile `name`, which must hold a managed registration.
    static func require(_ name: String, from store: ProfileStore) async throws -> OAuth2Profile {
        let profile = try await OAuth2Profile.require(name, from: store)
        guard profile.session.registration.registrationClientURI != nil else {
            throw CLIFailure(
                "profile '\(name)' holds no dynamic registration: its client '\(profile.session.clientID)' was registered by hand (see 'remote-auth registrations list')"
            )
        }
        return profile
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One line per profile with a dynamic registration: PROFILE CLIENT-ID ISSUER.",
            discussion: ExitStatus.help
        )
        @OptionGroup(title: "Profiles") var storeOptions: StoreOptions
        func run() async throws {
            for profile in try await RegistrationsCommand.registered(in: try await storeOptions.open()) {
                Terminal.writeLine(
                    "\(PeerText.printable(profile.name)) \(PeerText.printable(profile.session.clientID)) \(profile.session.server.issuer ?? "-")"
                )
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A profile's registration as the server holds it now (RFC 7592 read), secrets redacted.",
            discussion: ExitStatus.help
        )
        @Argument(help: "The profile name.") var name: String
        @OptionGroup(title: "TLS") var tlsOptions: TLSOptions
        @OptionGroup(title: "Profiles") var storeOptions: StoreOptions

        func run() async throws {
            let profile = try await RegistrationsCommand.require(name, from: try await storeOptions.open())
            let registration = profile.session.registration
            let registered = try await RegistrationsCommand.atServer(
                tlsOptions,
                profile: name,
                failing: "cannot read the registration"
            ) {
                try await OAuth2.DynamicRegistration.read(registration, transport: $0)
            }
            Terminal.writeLine("profile: \(name)")
            Terminal.writeLine("registration: \(registration.registrationClientURI ?? "")")
            for (member, value) in registered.members.sorted(by: { $0.key < $1.key }) {
                Terminal.writeLine("\(PeerText.printable(member, limit: 100)): \(Self.shown(member, value))")
            }
        }

        /// A member's value as one line of JSON; the members the library treats as secrets
        /// (`client_secret`, `registration_access_token`, tokens, ...) redacted.
        static func shown(_ member: String, _ value: JSONValue) -> String {
            if OAuth2.secretMembers.contains(member.lowercased()) { return "<redacted>" }
            if case .string(let text) = value { return PeerText.printable(text, limit: 500) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(value)) ?? Data()
            return PeerText.printable(String(decoding: data, as: UTF8.self), limit: 500)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a profile's registration at the server (RFC 7592 §2.3), then the profile.",
            discussion: ExitStatus.discussion(
                """
                The server invalidates the client id, its secret and the registration access token; \
                the profile's tokens would stop working, so the profile is removed too. When the server \
                refuses (the registration is already gone, the token revoked), nothing is removed: \
                'remote-auth profiles remove' forgets the profile alone.
                """
            )
        )
        @Argument(help: "The profile name.") var name: String
        @OptionGroup(title: "TLS") var tlsOptions: TLSOptions
        @OptionGroup(title: "Profiles") var storeOptions: StoreOptions

        func run() async throws {
            let profile = try await RegistrationsCommand.require(name, from: try await storeOptions.open())
            let registration = profile.session.registration
            try await RegistrationsCommand.atServer(
                tlsOptions,
                profile: name,
                failing: "cannot delete the registration",
                then: "; the profile is kept"
            ) {
                try await OAuth2.DynamicRegistration.delete(registration, transport: $0)
            }
            try await profile.store.removeSession(service: profile.key.service, account: profile.key.account)
            Terminal.writeLine(
                "Deleted client \(PeerText.printable(registration.clientID)) at \(profile.session.server.issuer ?? "its server") (RFC 7592) and removed profile '\(name)'."
            )
        }
    }
}
