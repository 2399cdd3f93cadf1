#!/usr/bin/env python3
"""Slow clients and an honest prober for tests/e2e/notary_slowloris.sh (not a
test itself). Two processes, so that the prober's timings are not the
drippers' own scheduling delays.

usage: notary_slowloris.py drip PORT CLIENTS SECONDS
         CLIENTS connections to 127.0.0.1:PORT that each drip a valid request
         (POST /session) one byte every 0.15 s (~7 bytes/s), starting at random
         moments within the first second, and reconnect whenever the notary
         answers or closes. Prints "answered_408=N".
       notary_slowloris.py probe PORT NOTARY_PID SECONDS
         every 0.2 s an honest GET /healthcheck and an honest POST /session,
         each on a fresh connection, timed; samples the notary's VmRSS.
         Prints "honest=N honest_max_ms=F honest_p50_ms=F rss_start_kib=N
         rss_max_kib=N".
"""
import asyncio
import random
import statistics
import sys
import time

DRIP = b"POST /session HTTP/1.1\r\nHost: n\r\nContent-Length: 2\r\n\r\n{}"


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def dripper(port, stop, counts):
    await asyncio.sleep(random.random())
    while not stop.is_set():
        try:
            r, w = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        reply = asyncio.create_task(r.read(4096))
        try:
            for i in range(len(DRIP)):
                if reply.done() or stop.is_set():
                    break
                w.write(DRIP[i:i + 1])
                await w.drain()
                await asyncio.sleep(0.15)
            if stop.is_set():
                break
            data = await asyncio.wait_for(reply, 7)
            if b" 408 " in data:
                counts["408"] += 1
        except (OSError, asyncio.TimeoutError, ConnectionError):
            pass
        finally:
            reply.cancel()
            w.close()


async def drip(port, clients, seconds):
    stop = asyncio.Event()
    counts = {"408": 0}
    tasks = [asyncio.create_task(dripper(port, stop, counts)) for _ in range(clients)]
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(f"answered_408={counts['408']}")


async def honest(port, req):
    t0 = time.monotonic()
    r, w = await asyncio.open_connection("127.0.0.1", port)
    w.write(req)
    await w.drain()
    head = await asyncio.wait_for(r.readuntil(b"\r\n\r\n"), 10)
    n = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
    await r.readexactly(n)
    w.close()
    if not head.startswith(b"HTTP/1.1 200 "):
        raise RuntimeError(head.decode(errors="replace"))
    return (time.monotonic() - t0) * 1000


async def probe(port, pid, seconds):
    rss0 = rss_max = rss_kib(pid)
    lat = []
    t_end = time.monotonic() + seconds
    while time.monotonic() < t_end:
        lat.append(await honest(port, b"GET /healthcheck HTTP/1.1\r\nHost: n\r\n\r\n"))
        lat.append(await honest(
            port, b"POST /session HTTP/1.1\r\nHost: n\r\nContent-Length: 2\r\n\r\n{}"))
        rss_max = max(rss_max, rss_kib(pid))
        await asyncio.sleep(0.2)
    print(f"honest={len(lat)} honest_max_ms={max(lat):.1f} "
          f"honest_p50_ms={statistics.median(lat):.1f} rss_start_kib={rss0} "
          f"rss_max_kib={rss_max}")


if sys.argv[1] == "drip":
    asyncio.run(drip(*(int(a) for a in sys.argv[2:5])))
else:
    asyncio.run(probe(*(int(a) for a in sys.argv[2:5])))
