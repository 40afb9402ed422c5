package txfuzz.dbms.mariadb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class InnodbStatusTest {
    /**
     * Captured from MariaDB 10.11.5 with innodb_status_output_locks=ON: thread 499 deleted the gap
     * (1, 5) and updated row 1; 500 waits to update row 1, 501 waits to insert 3 into the gap.
     */
    static final String SAMPLE = """
            =====================================
            2026-11-25 23:40:00 0x7f INNODB MONITOR OUTPUT
            =====================================
            ------------
            TRANSACTIONS
            ------------
            Trx id counter 38102
            History list length 6
            LIST OF TRANSACTIONS FOR EACH SESSION:
            ---TRANSACTION 38101, ACTIVE 0 sec inserting
            mysql tables in use 1, locked 1
            LOCK WAIT 2 lock struct(s), heap size 1128, 1 row lock(s)
            MariaDB thread id 501, OS thread handle 140390268880576, query id 5038 localhost 127.0.0.1 root Update
            INSERT INTO t VALUES (3, 3)
            ------- TRX HAS BEEN WAITING 303825 ns FOR THIS LOCK TO BE GRANTED:
            RECORD LOCKS space id 3113 page no 3 n bits 8 index PRIMARY of table `pr`.`t` trx id 38101 lock_mode X locks gap before rec insert intention waiting
            Record lock, heap no 3 PHYSICAL RECORD: n_fields 4; compact format; info bits 0
             0: len 4; hex 80000005; asc     ;;
             1: len 6; hex 000000000000; asc       ;;
             2: len 7; hex 80000000000000; asc        ;;
             3: len 4; hex 80000000; asc     ;;

            ------------------
            TABLE LOCK table `pr`.`t` trx id 38101 lock mode IX
            RECORD LOCKS space id 3113 page no 3 n bits 8 index PRIMARY of table `pr`.`t` trx id 38101 lock_mode X locks gap before rec insert intention waiting
            Record lock, heap no 3 PHYSICAL RECORD: n_fields 4; compact format; info bits 0
             0: len 4; hex 80000005; asc     ;;
             1: len 6; hex 000000000000; asc       ;;
             2: len 7; hex 80000000000000; asc        ;;
             3: len 4; hex 80000000; asc     ;;

            ---TRANSACTION 38100, ACTIVE 0 sec starting index read
            mysql tables in use 1, locked 1
            LOCK WAIT 2 lock struct(s), heap size 1128, 1 row lock(s)
            MariaDB thread id 500, OS thread handle 140390268266176, query id 5037 localhost 127.0.0.1 root Updating
            UPDATE t SET v = 2 WHERE id = 1
            ------- TRX HAS BEEN WAITING 304187 ns FOR THIS LOCK TO BE GRANTED:
            RECORD LOCKS space id 3113 page no 3 n bits 8 index PRIMARY of table `pr`.`t` trx id 38100 lock_mode X locks rec but not gap waiting
            Record lock, heap no 2 PHYSICAL RECORD: n_fields 4; compact format; info bits 0
             0: len 4; hex 80000001; asc     ;;
             1: len 6; hex 0000000094d3; asc       ;;
             2: len 7; hex 22000001380110; asc "   8  ;;
             3: len 4; hex 80000001; asc     ;;

            ------------------
            TABLE LOCK table `pr`.`t` trx id 38100 lock mode IX
            RECORD LOCKS space id 3113 page no 3 n bits 8 index PRIMARY of table `pr`.`t` trx id 38100 lock_mode X locks rec but not gap waiting
            Record lock, heap no 2 PHYSICAL RECORD: n_fields 4; compact format; info bits 0
             0: len 4; hex 80000001; asc     ;;
             1: len 6; hex 0000000094d3; asc       ;;
             2: len 7; hex 22000001380110; asc "   8  ;;
             3: len 4; hex 80000001; asc     ;;

            ---TRANSACTION 38099, ACTIVE 0 sec
            3 lock struct(s), heap size 1128, 2 row lock(s), undo log entries 1
            MariaDB thread id 499, OS thread handle 140390268573376, query id 5036 localhost 127.0.0.1 root 
            TABLE LOCK table `pr`.`t` trx id 38099 lock mode IX
            RECORD LOCKS space id 3113 page no 3 n bits 8 index PRIMARY of table `pr`.`t` trx id 38099 lock_mode X
            Record lock, heap no 3 PHYSICAL RECORD: n_fields 4; compact format; info bits 0
             0: len 4; hex 80000005; asc     ;;
             1: len 6; hex 000000000000; asc       ;;
             2: len 7; hex 80000000000000; asc        ;;
             3: len 4; hex 80000000; asc     ;;

            RECORD LOCKS space id 3113 page no 3 n bits 8 index PRIMARY of table `pr`.`t` trx id 38099 lock_mode X locks rec but not gap
            Record lock, heap no 2 PHYSICAL RECORD: n_fields 4; compact format; info bits 0
             0: len 4; hex 80000001; asc     ;;
             1: len 6; hex 0000000094d3; asc       ;;
             2: len 7; hex 22000001380110; asc "   8  ;;
             3: len 4; hex 80000001; asc     ;;

            --------
            FILE I/O
            """;

    @Test
    void namesTheWaitersAndWhoHoldsTheRecordTheyWaitFor() {
        InnodbStatus s = InnodbStatus.parse(SAMPLE);
        assertEquals(Optional.of(Set.of("499")), s.waitsFor("500"), "a row lock");
        assertEquals(Optional.of(Set.of("499")), s.waitsFor("501"), "an insert into a locked gap");
        assertEquals(Optional.empty(), s.waitsFor("499"));
        assertEquals(Optional.empty(), s.waitsFor("12345"));
        assertTrue(s.lists("499"));
        assertFalse(s.lists("12345"));
    }

    @Test
    void withoutLockOutputTheWaiterIsStillSeenButTheBlockerIsUnknown() {
        StringBuilder sb = new StringBuilder();
        for (String line : SAMPLE.split("\n")) {
            if (!line.startsWith("RECORD LOCKS") && !line.startsWith("Record lock") && !line.startsWith("TABLE LOCK")) {
                sb.append(line).append('\n');
            }
        }
        InnodbStatus s = InnodbStatus.parse(sb.toString());
        assertEquals(Optional.of(Set.of()), s.waitsFor("500"));
        assertEquals(Optional.empty(), s.waitsFor("499"));
    }

    @Test
    void onlyAServersOwnThreadIdNamesTheSession() {
        // a query text in the block may say "thread id" too; the session is the number after the server's own words
        InnodbStatus s = InnodbStatus.parse(SAMPLE.replace("MariaDB thread id 500", "my thread id 7 MariaDB thread id x MariaDB thread id 500"));
        assertEquals(Optional.of(Set.of("499")), s.waitsFor("500"));
        assertFalse(s.lists("7"));
    }

    @Test
    void mysqlSpellsTheThreadIdItsOwnWay() {
        InnodbStatus s = InnodbStatus.parse(SAMPLE.replace("MariaDB thread id", "MySQL thread id"));
        assertEquals(Optional.of(Set.of("499")), s.waitsFor("500"));
        assertEquals(Optional.empty(), InnodbStatus.parse("no transactions here").waitsFor("1"));
    }

    /**
     * Captured from MariaDB 10.11.5 at REPEATABLE READ: thread 8 updated row 2, thread 9 ran
     * {@code DELETE FROM t WHERE EXISTS (SELECT 1 FROM t AS x WHERE x.id = t.id + 1)} and waited for
     * it, then 8 updated row 1 (which 9 had locked): a deadlock, 9 the victim. InnoDB rolled 9's
     * transaction back, but the DELETE went on and waits again for row 2, in a transaction printed
     * "not started" with no thread id line: the probe used to answer "not waiting" for thread 9.
     */
    static final String DEADLOCK_VICTIM_WAITS_AGAIN = """
            =====================================
            2026-11-26 07:30:00 0x7f INNODB MONITOR OUTPUT
            =====================================
            ------------
            TRANSACTIONS
            ------------
            Trx id counter 47
            Purge done for trx's n:o < 45 undo n:o < 0 state: running
            History list length 21
            LIST OF TRANSACTIONS FOR EACH SESSION:
            ---TRANSACTION (0x7fcd879c1c80), not started fetching rows
            mysql tables in use 2, locked 2
            LOCK WAIT 1 lock struct(s), heap size 1128, 1 row lock(s)
            ------- TRX HAS BEEN WAITING 817622 ns FOR THIS LOCK TO BE GRANTED:
            RECORD LOCKS space id 8 page no 3 n bits 8 index PRIMARY of table `txfuzz_9fcaf95c73f2_1`.`t` trx id 0 lock_mode X waiting
            Record lock, heap no 3 PHYSICAL RECORD: n_fields 4; compact format; info bits 0
             0: len 4; hex 80000002; asc     ;;
             1: len 6; hex 00000000002d; asc      -;;
             2: len 7; hex 11000001430110; asc     C  ;;
             3: len 4; hex 80000001; asc     ;;

            ------------------
            ---TRANSACTION 45, ACTIVE 1 sec
            3 lock struct(s), heap size 1128, 2 row lock(s), undo log entries 2
            MariaDB thread id 8, OS thread handle 140520660084416, query id 54 127.0.0.1 txfuzz_runner 
            TABLE LOCK table `txfuzz_9fcaf95c73f2_1`.`t` trx id 45 lock mode IX
            RECORD LOCKS space id 8 page no 3 n bits 8 index PRIMARY of table `txfuzz_9fcaf95c73f2_1`.`t` trx id 45 lock_mode X locks rec but not gap
            Record lock, heap no 3 PHYSICAL RECORD: n_fields 4; compact format; info bits 0
             0: len 4; hex 80000002; asc     ;;
             1: len 6; hex 00000000002d; asc      -;;
             2: len 7; hex 11000001430110; asc     C  ;;
             3: len 4; hex 80000001; asc     ;;

            RECORD LOCKS space id 8 page no 3 n bits 8 index PRIMARY of table `txfuzz_9fcaf95c73f2_1`.`t` trx id 45 lock_mode X locks rec but not gap
            Record lock, heap no 2 PHYSICAL RECORD: n_fields 4; compact format; info bits 0
             0: len 4; hex 80000001; asc     ;;
             1: len 6; hex 00000000002d; asc      -;;
             2: len 7; hex 11000001430131; asc     C 1;;
             3: len 4; hex 80000001; asc     ;;

            ---TRANSACTION (0x7fcd879c0680), not started
            0 lock struct(s), heap size 1128, 0 row lock(s)
            ---TRANSACTION (0x7fcd879bfb80), not started
            0 lock struct(s), heap size 1128, 0 row lock(s)
            --------
            FILE I/O
            """;

    @Test
    void aWaitPrintedWithoutItsThreadIdIsAnAnonymousWaitOnTheHolder() {
        InnodbStatus s = InnodbStatus.parse(DEADLOCK_VICTIM_WAITS_AGAIN);
        assertFalse(s.lists("9"), "the waiter's thread id is not printed");
        assertEquals(Optional.empty(), s.waitsFor("9"));
        assertEquals(Optional.of(Set.of("8")), s.anonymousWait(), "it waits for row 2, which thread 8 holds");
        assertEquals(Optional.empty(), s.waitsFor("8"));
        assertEquals(Optional.empty(), InnodbStatus.parse(SAMPLE).anonymousWait(), "every waiter there has its thread id");
    }
}
