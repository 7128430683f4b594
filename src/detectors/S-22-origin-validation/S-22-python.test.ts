import detector from './python.js';
import { testPythonFixtures } from '../../../test/support/python-tester.js';

testPythonFixtures('S-22', detector, import.meta.url);
