import gate from './gate.js';
import { testGateFolder } from '../../../test/support/gate-tester.js';

testGateFolder('C-7', gate, import.meta.url);
