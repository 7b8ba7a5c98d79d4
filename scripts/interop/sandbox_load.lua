-- wrk's script for scripts/interop/sandbox_load.sh (wrk 4 runs LuaJIT 2.1: the `bit` module,
-- no crypto): each request of the run is made here, and its answer counted.
--
--   wrk ... -s sandbox_load.lua URL -- bearer TOKEN
--       GET URL with `Authorization: Bearer TOKEN` (RFC 6750 §2.1)
--   wrk ... -s sandbox_load.lua URL -- post-bearer TOKEN
--       POST URL with the Bearer token and a form body `status=…` unique to the request
--   wrk ... -s sandbox_load.lua URL -- oauth1 CONSUMER_KEY CONSUMER_SECRET TOKEN TOKEN_SECRET
--       GET URL signed with OAuth 1.0a HMAC-SHA1 (RFC 5849 §3.4.2) in the Authorization header
--       (§3.5.1), a nonce unique to the request (§3.3) and the current timestamp. PLAINTEXT
--       would need no hash, but RFC 5849 §3.4.4 allows it only over TLS, and this runs on
--       plain http on loopback: HMAC-SHA1 is computed here (SHA-1 of FIPS 180-4, HMAC of
--       RFC 2104), checked at start against RFC 2202's test cases.
--
-- done() prints one line the shell script reads:
--   load: requests=N duration_us=D rps=R p50_ms=A p99_ms=B max_ms=C ok=N2 not_ok=N3
--         connect=E1 read=E2 write=E3 timeout=E4 status=E5
-- where ok/not_ok count 2xx and other answers (from response()), and the rest are wrk's
-- socket errors and its count of answers over 399.

local bit = require("bit")
local band, bor, bxor, bnot = bit.band, bit.bor, bit.bxor, bit.bnot
local lshift, rshift, rol, tobit = bit.lshift, bit.rshift, bit.rol, bit.tobit

-- SHA-1 (FIPS 180-4 §6.1) of a Lua string, as 20 raw octets.
local function sha1(message)
    local h0, h1, h2, h3, h4 = tobit(0x67452301), tobit(0xEFCDAB89), tobit(0x98BADCFE), tobit(0x10325476), tobit(0xC3D2E1F0)
    local length = #message
    local bits = length * 8
    -- Padding: 0x80, zeros up to 56 mod 64, the length in bits as 64-bit big-endian (the
    -- high word is 0: these messages are far below 512 MiB).
    message = message .. "\128" .. string.rep("\0", (55 - length) % 64) .. "\0\0\0\0"
        .. string.char(band(rshift(bits, 24), 255), band(rshift(bits, 16), 255), band(rshift(bits, 8), 255), band(bits, 255))
    local w = {}
    for block = 1, #message, 64 do
        for i = 0, 15 do
            local a, b, c, d = message:byte(block + i * 4, block + i * 4 + 3)
            w[i] = bor(lshift(a, 24), lshift(b, 16), lshift(c, 8), d)
        end
        for i = 16, 79 do
            w[i] = rol(bxor(w[i - 3], w[i - 8], w[i - 14], w[i - 16]), 1)
        end
        local a, b, c, d, e = h0, h1, h2, h3, h4
        for i = 0, 79 do
            local f, k
            if i < 20 then
                f, k = bor(band(b, c), band(bnot(b), d)), 0x5A827999
            elseif i < 40 then
                f, k = bxor(b, c, d), 0x6ED9EBA1
            elseif i < 60 then
                f, k = bor(band(b, c), band(b, d), band(c, d)), 0x8F1BBCDC
            else
                f, k = bxor(b, c, d), 0xCA62C1D6
            end
            local temp = tobit(rol(a, 5) + f + e + k + w[i])
            e, d, c, b, a = d, c, rol(b, 30), a, temp
        end
        h0, h1, h2, h3, h4 = tobit(h0 + a), tobit(h1 + b), tobit(h2 + c), tobit(h3 + d), tobit(h4 + e)
    end
    local out = {}
    for _, h in ipairs({ h0, h1, h2, h3, h4 }) do
        out[#out + 1] = string.char(band(rshift(h, 24), 255), band(rshift(h, 16), 255), band(rshift(h, 8), 255), band(h, 255))
    end
    return table.concat(out)
end

-- HMAC-SHA1 (RFC 2104, block size 64).
local function hmac_sha1(key, message)
    if #key > 64 then key = sha1(key) end
    key = key .. string.rep("\0", 64 - #key)
    local inner, outer = {}, {}
    for i = 1, 64 do
        local byte = key:byte(i)
        inner[i] = string.char(bxor(byte, 0x36))
        outer[i] = string.char(bxor(byte, 0x5C))
    end
    return sha1(table.concat(outer) .. sha1(table.concat(inner) .. message))
end

local function hex(bytes)
    return (bytes:gsub(".", function(c) return string.format("%02x", c:byte()) end))
end

local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function base64(bytes)
    local out = {}
    for i = 1, #bytes, 3 do
        local a, b, c = bytes:byte(i, i + 2)
        local n = lshift(a, 16) + lshift(b or 0, 8) + (c or 0)
        local chars = {}
        for j = 3, 0, -1 do
            local index = band(rshift(n, j * 6), 63) + 1
            chars[#chars + 1] = alphabet:sub(index, index)
        end
        if not b then chars[3], chars[4] = "=", "=" elseif not c then chars[4] = "=" end
        out[#out + 1] = table.concat(chars)
    end
    return table.concat(out)
end

-- RFC 5849 §3.6: every octet but the unreserved characters, %XX in uppercase hex.
local function encode(text)
    return (tostring(text):gsub("[^A-Za-z0-9%-%._~]", function(c) return string.format("%%%02X", c:byte()) end))
end

-- RFC 2202 §3 test cases 1, 2 and 6 (a key longer than the block).
local function self_test()
    local cases = {
        { string.rep("\11", 20), "Hi There", "b617318655057264e28bc0b6fb378c8ef146be00" },
        { "Jefe", "what do ya want for nothing?", "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79" },
        { string.rep("\170", 80), "Test Using Larger Than Block-Size Key - Hash Key First", "aa4ae5e15272d00e95705637ce8a3b55ed402112" },
    }
    for _, case in ipairs(cases) do
        local got = hex(hmac_sha1(case[1], case[2]))
        if got ~= case[3] then error("HMAC-SHA1 self-test failed: " .. got .. " is not " .. case[3]) end
    end
end

-- The main state: threads get a number each, and their counts are summed in done().
local threads = {}
local next_id = 1
function setup(thread)
    thread:set("id", next_id)
    next_id = next_id + 1
    table.insert(threads, thread)
end

-- Each thread's own state.
local mode, token, consumer_key, signing_key, access_token, base_uri
local counter = 0
ok, not_ok = 0, 0

function init(args)
    self_test()
    mode = args[1]
    if mode == "bearer" or mode == "post-bearer" then
        token = args[2]
    elseif mode == "oauth1" then
        consumer_key, access_token = args[2], args[4]
        signing_key = encode(args[3]) .. "&" .. encode(args[5])
    else
        error("sandbox_load.lua: the mode is bearer TOKEN, post-bearer TOKEN or oauth1 CK CS TOKEN TS, not " .. tostring(mode))
    end
    -- RFC 5849 §3.4.1.2: scheme and host in lowercase, the port when it is not the default.
    local port = tostring(wrk.port or "")
    local authority = string.lower(wrk.host)
    if port ~= "" and port ~= "80" then authority = authority .. ":" .. port end
    base_uri = string.lower(wrk.scheme) .. "://" .. authority .. wrk.path
end

function request()
    counter = counter + 1
    if mode == "bearer" then
        return wrk.format("GET", nil, { ["Authorization"] = "Bearer " .. token })
    elseif mode == "post-bearer" then
        return wrk.format("POST", nil, {
            ["Authorization"] = "Bearer " .. token,
            ["Content-Type"] = "application/x-www-form-urlencoded",
        }, "status=load+" .. id .. "+" .. counter)
    end
    local nonce = string.format("w%dn%dt%d", id, counter, os.time()) .. tostring(math.random(1, 1000000000))
    local parameters = {
        { "oauth_consumer_key", consumer_key },
        { "oauth_nonce", nonce },
        { "oauth_signature_method", "HMAC-SHA1" },
        { "oauth_timestamp", tostring(os.time()) },
        { "oauth_token", access_token },
        { "oauth_version", "1.0" },
    }
    -- §3.4.1.3.2: encoded pairs, sorted (these names are already in order and unique).
    local pairs_ = {}
    for i, p in ipairs(parameters) do pairs_[i] = encode(p[1]) .. "=" .. encode(p[2]) end
    local base = "GET&" .. encode(base_uri) .. "&" .. encode(table.concat(pairs_, "&"))
    local signature = base64(hmac_sha1(signing_key, base))
    local header = {}
    for i, p in ipairs(parameters) do header[i] = p[1] .. '="' .. encode(p[2]) .. '"' end
    header[#header + 1] = 'oauth_signature="' .. encode(signature) .. '"'
    return wrk.format("GET", nil, { ["Authorization"] = "OAuth " .. table.concat(header, ", ") })
end

function response(status, headers, body)
    if status >= 200 and status < 300 then ok = ok + 1 else not_ok = not_ok + 1 end
end

function done(summary, latency, requests)
    local ok_total, not_ok_total = 0, 0
    for _, thread in ipairs(threads) do
        ok_total = ok_total + (thread:get("ok") or 0)
        not_ok_total = not_ok_total + (thread:get("not_ok") or 0)
    end
    local e = summary.errors
    io.write(string.format(
        "load: requests=%d duration_us=%d rps=%.0f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f ok=%d not_ok=%d connect=%d read=%d write=%d timeout=%d status=%d\n",
        summary.requests, summary.duration, summary.requests / (summary.duration / 1e6),
        latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
        ok_total, not_ok_total, e.connect, e.read, e.write, e.timeout, e.status))
end
