/**
 * A self-signed certificate for `localhost` and 127.0.0.1 (EC P-256, valid until 2126), for serving
 * the simulator over HTTPS and HTTP/2 in tests and demos on one machine: a client trusts it with
 * `ca: LOCALHOST_TLS.cert` (undici's `new Agent({ connect: { ca } })`, `tls.setDefaultCACertificates`,
 * or `NODE_EXTRA_CA_CERTS` pointing at a copy). Its private key is public — here — so it proves
 * nothing about who serves it: never use it for anything but local tests.
 */
export const LOCALHOST_TLS: { readonly key: string; readonly cert: string } = {
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgBVKckx2s9xzh9ta3
0GJgWzCb/zsYUTPK4Kv6XUTcDqOhRANCAARm85PNMbNJoHmTbaQGvJvR++5Mz3Il
a35gNMbbh6YRG5U9O/HWcdllSQ5Fn9cGkS7vGMER6B1oatKk7u/rcI1a
-----END PRIVATE KEY-----
`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUPK9dGjh6MnPq5TYuZW0fEsS/EXgwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwMzEwMDYxN1oYDzIxMjYxMTA5
MTAwNjE3WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARm85PNMbNJoHmTbaQGvJvR++5Mz3Ila35gNMbbh6YRG5U9O/HWcdll
SQ5Fn9cGkS7vGMER6B1oatKk7u/rcI1ao28wbTAdBgNVHQ4EFgQU39QAoyhRXFGY
Frtyc1DitNTIcF4wHwYDVR0jBBgwFoAU39QAoyhRXFGYFrtyc1DitNTIcF4wDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSAAwRQIgMxuIBXvexwNqBT+EhrdlZxu5AJeYIn/X4K+B1pX+yXECIQC7
YTA/MgKU+v6EIGrntiKpm2HjnCPnSFUkU49JuQPfAQ==
-----END CERTIFICATE-----
`,
};
