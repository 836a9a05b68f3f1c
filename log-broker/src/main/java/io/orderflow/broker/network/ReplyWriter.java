package io.orderflow.broker.network;

import io.orderflow.broker.handler.RequestDispatcher;
import io.orderflow.broker.protocol.MalformedRequestException;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.network.Send;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writing half of a {@link Connection}: sends its replies in the order the requests arrived, each once it
 * and every earlier one are ready. Runs on a thread of its own, so while one Produce waits for its fsync
 * the reading half can already append the next one (see
 * {@link io.orderflow.broker.handler.PipelinedApiHandler}).
 *
 * <p>The reading half hands over replies with {@link #submit}, which blocks while {@code capacity} replies are
 * outstanding (back-pressure: a client that pipelines without reading stops being read), and calls
 * {@link #awaitAllWritten} before a request that must see every earlier one answered, whose reply it then writes
 * itself ({@link #writeNow}).
 *
 * <p>Crash behaviour: an I/O error while writing closes the socket, so the reading half fails on its next read,
 * and what is still queued is dropped; the client sees a broken connection and retries, as with any other. Its
 * appends are in the log either way; an idempotent producer's retry is recognised as a duplicate.
 *
 * <p>Thread-safety: one reading thread calls {@link #submit}, {@link #awaitAllWritten}, {@link #writeNow} and
 * {@link #finish}; the writer's own thread runs {@link #run}. The socket is written by one of them at a time: the
 * reader writes only when nothing is outstanding, and the lock orders its writes after the writer's.
 */
final class ReplyWriter implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ReplyWriter.class);
    private static final RequestDispatcher.Reply END = new RequestDispatcher.Reply(() -> null);

    private final String connectionId;
    private final Transport out;
    private final NetworkStats stats;
    private final int capacity;
    private final BlockingQueue<RequestDispatcher.Reply> queue = new LinkedBlockingQueue<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition written = lock.newCondition();
    private int outstanding;
    private boolean stopped;

    ReplyWriter(String connectionId, Transport out, NetworkStats stats, int capacity) {
        this.connectionId = connectionId;
        this.out = out;
        this.stats = stats;
        this.capacity = capacity;
    }

    /** Queues a reply behind every earlier one; blocks while {@code capacity} replies are outstanding. */
    void submit(RequestDispatcher.Reply reply) throws InterruptedException {
        lock.lock();
        try {
            while (outstanding >= capacity && !stopped) {
                written.await();
            }
            outstanding++;
        } finally {
            lock.unlock();
        }
        queue.add(reply);
    }

    /** Returns once every submitted reply has been written. */
    void awaitAllWritten() throws InterruptedException, ClosedChannelException {
        lock.lock();
        try {
            while (outstanding > 0 && !stopped) {
                written.await();
            }
            if (stopped) {
                throw new ClosedChannelException();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Answers on the calling thread instead: for a request that waited in {@link #awaitAllWritten}, so nothing is
     * outstanding and this is the only writer. Saves the hand-over to the writer's thread on the path every Fetch,
     * Metadata or group request takes.
     */
    void writeNow(RequestDispatcher.Reply reply) throws IOException {
        write(reply.answer().get());
    }

    /** No more replies will come: the writer stops after writing the queued ones. */
    void finish() {
        queue.add(END);
    }

    @Override
    public void run() {
        try {
            while (true) {
                RequestDispatcher.Reply reply = queue.take();
                if (reply == END) {
                    return;
                }
                write(reply.answer().get());
                lock.lock();
                try {
                    outstanding--;
                    written.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        } catch (IOException e) {
            log.atDebug()
                    .addKeyValue("connection", connectionId)
                    .addKeyValue("error", e.toString())
                    .log("Writing a reply failed");
            closeSocket();
        } catch (InterruptedException e) {
            closeSocket();
        } catch (MalformedRequestException e) {
            log.atWarn()
                    .addKeyValue("connection", connectionId)
                    .addKeyValue("problem", e.getMessage())
                    .log("Closing a connection: no answer can be built for its request");
            closeSocket();
        } catch (RuntimeException e) {
            log.atError()
                    .setCause(e)
                    .addKeyValue("connection", connectionId)
                    .log("Closing a connection after an unexpected failure while answering");
            closeSocket();
        } finally {
            lock.lock();
            try {
                stopped = true;
                written.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    private void write(Send send) throws IOException {
        if (send != null) {
            long before = out.bytesWritten();
            while (!send.completed()) {
                send.writeTo(out);
            }
            stats.sent(out.bytesWritten() - before);
        }
    }

    private void closeSocket() {
        try {
            out.close();
        } catch (IOException e) {
            log.debug("Closing {}: {}", connectionId, e.toString());
        }
    }
}
