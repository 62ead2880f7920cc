"""Ed25519 public keys we accept: canonical encodings of points that are not of small order
(receipts.md, Keys: such keys are refused on import). RFC 8032 §5.1.3 decoding, then [8]P."""

from typing import Final

P: Final = 2**255 - 19
D: Final = (-121665 * pow(121666, P - 2, P)) % P
SQRT_M1: Final = pow(2, (P - 1) // 4, P)


class UnacceptableKey(ValueError):
    """The bytes are not an acceptable Ed25519 public key; the message says why."""


def _decode(encoded: bytes) -> tuple[int, int]:
    if len(encoded) != 32:
        raise UnacceptableKey("an Ed25519 public key is 32 bytes")
    y = int.from_bytes(encoded, "little") & ((1 << 255) - 1)
    sign = encoded[31] >> 7
    if y >= P:
        raise UnacceptableKey("the key is not canonically encoded (y ≥ p)")
    u, v = (y * y - 1) % P, (D * y * y + 1) % P
    x = (u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P)) % P
    if (v * x * x - u) % P != 0:
        x = (x * SQRT_M1) % P
        if (v * x * x - u) % P != 0:
            raise UnacceptableKey("the key is not a point on the curve")
    if x == 0 and sign:
        raise UnacceptableKey("the key is not canonically encoded (x = 0 with the sign bit set)")
    if x & 1 != sign:
        x = P - x
    return x, y


def _double(point: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    x1, y1, z1, _ = point
    a, b = x1 * x1 % P, y1 * y1 % P
    c = 2 * z1 * z1 % P
    h = (a + b) % P
    e = (h - (x1 + y1) * (x1 + y1)) % P
    g = (a - b) % P
    f = (c + g) % P
    return e * f % P, g * h % P, f * g % P, e * h % P


def check_public_key(encoded: bytes) -> None:
    """Raise UnacceptableKey unless `encoded` is a canonical point of large order."""
    x, y = _decode(encoded)
    point = (x, y, 1, x * y % P)
    for _ in range(3):
        point = _double(point)
    px, py, pz, _ = point
    if px % P == 0 and (py - pz) % P == 0:
        raise UnacceptableKey("the key is a point of small order")
