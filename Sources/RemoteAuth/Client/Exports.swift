// `HTTPRequest`, `HTTPResponse` and `HTTPFields` appear throughout the public API, so a user's
// `import RemoteAuth` brings them too, as Hummingbird re-exports HTTPTypes.
@_exported public import HTTPTypes
