import gate from './gate.js';
import { testGateFolder } from '../../../test/support/gate-tester.js';

testGateFolder('A-4', gate, import.meta.url);
