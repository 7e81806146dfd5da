"""A real SMTP server on loopback for the mail tests (aiosmtpd).

Listens on 127.0.0.1 on the port given as its argument, else on one the system chooses;
prints `PORT <n>` on the first line of
standard output, then one JSON line per message received: the envelope sender and
recipients, and the message's From, To and Subject headers and its text (decoded).
Stops when its standard input closes (the test ended), so it never outlives the test.
"""

import asyncio
import email
import email.policy
import json
import sys

from aiosmtpd.smtp import SMTP


class Sink:
    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        body = message.get_body(preferencelist=("plain",))
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "from": str(message["From"]),
            "to": str(message["To"]),
            "subject": str(message["Subject"]),
            "content_type": message.get_content_type(),
            "body": body.get_content() if body is not None else "",
        }
        print(json.dumps(record), flush=True)
        return "250 OK"


async def main():
    loop = asyncio.get_running_loop()
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = await loop.create_server(lambda: SMTP(Sink(), hostname="sink.test"), "127.0.0.1", port)
    port = server.sockets[0].getsockname()[1]
    print(f"PORT {port}", flush=True)
    # Standard input closing is the sign to stop.
    await loop.run_in_executor(None, sys.stdin.read)
    server.close()


asyncio.run(main())
