import ArgumentParser

@main
struct RemoteAuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote-auth",
        abstract: "Authenticate to remote HTTP services: OAuth 1.0a, HTTP Basic and Digest."
    )
}
